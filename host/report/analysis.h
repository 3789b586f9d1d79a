// khost analyze's model: from one run's report (host/report/report.h), which variant wins, whether
// the win is real, which counters explain it, and what each parameter does. Pure: computed once,
// then rendered as tables (analysis tables below), plots (host/report/plots.h) or HTML
// (host/report/html_report.h).
//
// The time is the kernel's own (kernel-time) when every ranked variant printed it, else the
// wall time. Only variants valid in every repetition are ranked and correlated; the others are
// named in a note. Correlations are across variants, of each value's median against the time's
// median, ranked by |Spearman r| (robust to a few extreme variants), Pearson kept beside it
// (the seed's high_correlations.csv is Pearson's). Parameters are not correlated: their effect
// is the median time of the variants at each of their values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/report/drift.h"
#include "host/report/report.h"
#include "host/report/roofline.h"
#include "host/report/stats.h"
#include "host/report/table.h"

namespace ktune::host {

struct AnalyzeOptions {
  double threshold = 0.7;  // |r| above which a counter counts as correlated with time
  double alpha = 0.05;     // significance level of the winner's test
  // The run was measured in interleaved rounds (its meta's order): a repetition index is a round,
  // whose variants ran side by side, so a drift can be paired away (WeighDrift).
  bool interleaved = false;
  // The board's roofline ceilings (host/report/roofline.h), when measured, and the precision of
  // the kernel's arithmetic, whose peak bounds it.
  std::optional<Ceilings> ceilings;
  // Why there are none, or what to know of them (an emulator's), said when the variants declare
  // their work.
  std::string ceilings_note;
  std::string precision = "fp32";
};

struct RankedVariant {
  size_t variant = 0;  // index into RunReport::variants
  double median = 0;   // time, in the time's unit
  std::optional<Interval> ci;
  size_t n = 0;  // repetitions
  std::optional<double> cv;
};

// The winner against the runner-up: Mann-Whitney U over their repetitions' times.
struct Verdict {
  size_t winner = 0, runner_up = 0;  // indices into Analysis::ranking
  double ratio = 1;                  // runner-up's median / winner's
  std::optional<MannWhitney> test;   // none when a side has no repetition times
  bool distinguishable = false;      // p < alpha
  // The run drifted (host/report/drift.h: significant at p < 0.01) by at least the difference
  // between the two: no winner is named, and `text` says why ("unstable: ...").
  bool unstable = false;
  // Interleaved runs: the runner-up's time over the winner's, round by round (log of the ratio's
  // sign), tested when the run drifted.
  std::optional<SignTest> rounds;
  std::string text;
};

struct CounterCorrelation {
  std::string name;
  std::string unit;  // "" for counts and metrics; "ns" or "s" for the other clocks
  bool metric = false;
  size_t n = 0;  // variants with a value
  std::optional<Correlation> pearson, spearman;
  std::string problem;  // why there is no correlation: "constant across variants", ...
};

struct ParamLevel {
  std::string value;
  double median = 0;  // of the variants' median times
  size_t variants = 0;
};
struct ParamEffect {
  std::string param;
  std::vector<ParamLevel> levels;  // by value (numerically when they are numbers)
  double spread = 1;               // slowest level's median / fastest's
};

// The winner beside a reference variant (the median one of the ranking), counter by counter and
// metric by metric (the other clocks are left out: they are the time again, not a reason).
struct WhyRow {
  std::string name;
  bool metric = false;
  std::optional<double> best, reference;
  std::optional<size_t> rank;  // 1-based among the correlated counters and metrics
  std::optional<double> r;     // its Spearman r with time
};
struct WhyItWins {
  size_t best = 0, reference = 0;  // indices into Analysis::ranking
  double speedup = 1;              // reference time / best time
  std::vector<WhyRow> rows;        // correlated ones first, by rank
  std::string sentence;
};

struct Analysis {
  std::string run_id;
  std::string time_name;  // kernel-time or wall-time
  std::string time_unit;  // as the report holds it: "s" or "ns"
  std::vector<std::string> param_names;
  std::vector<RankedVariant> ranking;  // fastest first
  std::optional<Verdict> verdict;      // when two variants are ranked
  std::optional<Drift> drift;          // of the ranked variants' times (host/report/drift.h)
  std::vector<CounterCorrelation> correlations;
  std::vector<ParamEffect> effects;
  std::optional<WhyItWins> why;
  // The ranked variants placed on the roofline (host/report/roofline.h), in ranking order: their
  // achieved rates and intensity, and under the board's ceilings when it has them. Empty when
  // no ranked variant declares its work (its spec has no flops: or bytes:).
  std::vector<Placement> roofline;
  bool has_ceilings = false;
  std::optional<Ceilings> ceilings;  // the board's, when it has them (the plot draws them)
  std::string precision;
  std::string roofline_note;  // why there is no roofline, or what to know of its ceilings
  std::vector<std::string> notes;
  double threshold = 0.7;
  double alpha = 0.05;  // the verdict's significance level
};

// Fails only when nothing can be analyzed: no variant valid in every repetition with a time.
Result<Analysis> Analyze(const RunReport& report, const AnalyzeOptions& options = {});

// A variant's short label: its parameter values joined by "_" ("8_16_8"), else its name.
std::string VariantLabel(const VariantSummary& v);

// How a counter differs between the best and the reference variant: "3.1x fewer", "1.4x more",
// "equal" for counts; the plain pair for metrics.
std::string DifferenceText(const WhyRow& row);

}  // namespace ktune::host
