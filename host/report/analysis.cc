#include "host/report/analysis.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/csv.h"
#include "common/strings.h"
#include "host/util/format.h"

namespace ktune::host {
namespace {

std::optional<double> UsableMedian(const VariantSummary& v, const std::string& name) {
  const ValueSummary* s = v.Find(name);
  return s && Usable(s->status) ? s->median : std::nullopt;
}

std::optional<double> MetricValue(const VariantSummary& v, const std::string& name) {
  for (const MetricSummary& m : v.metrics) {
    if (m.name == name) return m.value;
  }
  return std::nullopt;
}

// A variant's value or metric: the usable median of a value, the metric's value.
std::optional<double> ValueOf(const VariantSummary& v, const std::string& name, bool metric) {
  return metric ? MetricValue(v, name) : UsableMedian(v, name);
}

// The ranked variants' medians of one value or metric, NaN where a variant has none.
std::vector<double> Column(const Analysis& a, const RunReport& report, const std::string& name,
                           bool metric) {
  std::vector<double> out;
  for (const RankedVariant& rv : a.ranking) {
    const auto x = ValueOf(report.variants[rv.variant], name, metric);
    out.push_back(x ? *x : NAN);
  }
  return out;
}

// Finite numbers first, in numeric order, then the rest as text (a strict weak order).
bool LevelBefore(const std::string& a, const std::string& b) {
  auto x = ParseDouble(a), y = ParseDouble(b);
  const bool xn = x.ok() && std::isfinite(*x), yn = y.ok() && std::isfinite(*y);
  if (xn != yn) return xn;
  if (xn) return *x != *y ? *x < *y : a < b;
  return a < b;
}

void RankCorrelations(std::vector<CounterCorrelation>* c) {
  auto strength = [](const CounterCorrelation& x) {
    return x.spearman ? std::fabs(x.spearman->r) : -1.0;
  };
  std::stable_sort(c->begin(), c->end(), [&](const auto& a, const auto& b) {
    if (strength(a) != strength(b)) return strength(a) > strength(b);
    const double pa = a.pearson ? std::fabs(a.pearson->r) : -1.0;
    const double pb = b.pearson ? std::fabs(b.pearson->r) : -1.0;
    return pa > pb;
  });
}

// The variants valid in every repetition (by index), and the others described for a note.
struct Validity {
  std::vector<size_t> valid;
  std::vector<std::string> left_out;  // "name (valid/repetitions valid, failure)"
};

Validity SplitByValidity(const RunReport& report) {
  Validity out;
  for (size_t i = 0; i < report.variants.size(); ++i) {
    const VariantSummary& v = report.variants[i];
    if (v.all_valid()) {
      out.valid.push_back(i);
    } else {
      out.left_out.push_back(v.name + " (" + std::to_string(v.valid) + "/" +
                             std::to_string(v.repetitions) + " valid, " + v.failure + ")");
    }
  }
  return out;
}

// The note naming the left-out variants, the first five of them.
std::string LeftOutNote(const std::vector<std::string>& left_out) {
  std::string list;
  for (size_t i = 0; i < left_out.size() && i < 5; ++i) list += (i ? "; " : "") + left_out[i];
  if (left_out.size() > 5) list += "; ...";
  return std::to_string(left_out.size()) + " variant(s) failed in some repetition " +
         "and are left out: " + list;
}

// Fills a->ranking with the valid variants, fastest first, and a->time_unit; returns the fewest
// repetitions any of them counted.
size_t RankByTime(const RunReport& report, const std::vector<size_t>& valid, Analysis* a) {
  size_t fewest_reps = SIZE_MAX;
  for (size_t i : valid) {
    const ValueSummary* t = report.variants[i].Find(a->time_name);
    a->time_unit = t->unit;
    RankedVariant rv;
    rv.variant = i;
    rv.median = *t->median;
    rv.ci = t->ci;
    rv.n = t->counted;
    rv.cv = t->cv;
    fewest_reps = std::min(fewest_reps, rv.n);
    a->ranking.push_back(rv);
  }
  std::stable_sort(
      a->ranking.begin(), a->ranking.end(),
      [](const RankedVariant& x, const RankedVariant& y) { return x.median < y.median; });
  return fewest_reps;
}

// The note saying the intervals need more repetitions, when `fewest_reps` is too few.
std::optional<std::string> FewRepetitionsNote(size_t fewest_reps) {
  const size_t need = MinValuesForMedianInterval(0.95);
  if (fewest_reps >= need) return std::nullopt;
  return std::to_string(fewest_reps) +
         " repetition(s) for some variant: a 95% confidence interval of the median "
         "needs " +
         std::to_string(need) + " (khost run --reps " + std::to_string(need) +
         "); intervals are left out where they are missing";
}

// The verdict's sentence, from the labels, the times and ratio, and the test when there is one.
std::string VerdictText(const Verdict& v, const std::string& winner, const std::string& runner_up,
                        const std::string& times, size_t n_winner, size_t n_runner_up) {
  if (!v.test) {
    return winner + " is fastest (" + times + "), but there are no repetition times to test it";
  }
  const std::string test = "Mann-Whitney U = " + FormatNumber(v.test->u) + ", " +
                           FormatPClause(v.test->p_value) + " over " + std::to_string(n_winner) +
                           " and " + std::to_string(n_runner_up) + " repetitions";
  return v.distinguishable
             ? winner + " is faster than the runner-up " + runner_up + " (" + times + "; " + test +
                   ")"
             : winner + " and the runner-up " + runner_up + " are not distinguishable (" + times +
                   "; " + test + "): more repetitions may tell them apart";
}

// The winner against the runner-up (the ranking holds at least two).
Verdict CompareWinner(const Analysis& a, const RunReport& report, double alpha) {
  Verdict v;
  v.winner = 0;
  v.runner_up = 1;
  const RankedVariant& w = a.ranking[0];
  const RankedVariant& r = a.ranking[1];
  v.ratio = w.median > 0 ? r.median / w.median : 1;
  const VariantSummary& wv = report.variants[w.variant];
  const VariantSummary& rv = report.variants[r.variant];
  v.test = MannWhitneyU(wv.Find(a.time_name)->sample, rv.Find(a.time_name)->sample);
  if (v.test) v.distinguishable = v.test->p_value < alpha;
  const std::string times = FormatTime(w.median, a.time_unit) + " vs " +
                            FormatTime(r.median, a.time_unit) + ", " + FormatRatio(v.ratio);
  v.text = VerdictText(v, VariantLabel(wv), VariantLabel(rv), times, w.n, r.n);
  return v;
}

// The drift of the ranked variants' times over the run.
std::optional<Drift> DriftOf(const Analysis& a, const RunReport& report) {
  std::vector<VariantTimes> times;
  for (const RankedVariant& r : a.ranking) {
    const ValueSummary* t = report.variants[r.variant].Find(a.time_name);
    times.push_back({t->repetitions, t->sample});
  }
  return MeasureDrift(times);
}

// A drift significant at p < 0.01 that is as large as the difference between the winner and the
// runner-up explains it: the verdict becomes "unstable" instead of naming a winner. A smaller
// significant drift is a note.
constexpr double kDriftAlpha = 0.01;

// A variant's time per round: the median of the round's values (one per pass).
std::map<uint32_t, double> TimePerRound(const ValueSummary& t) {
  std::map<uint32_t, std::vector<double>> values;
  for (size_t i = 0; i < t.sample.size() && i < t.repetitions.size(); ++i) {
    values[t.repetitions[i]].push_back(t.sample[i]);
  }
  std::map<uint32_t, double> out;
  for (const auto& [round, v] : values) out[round] = *Median(v);
  return out;
}

// The sign test of the runner-up's time over the winner's, round by round (both measured in it).
std::optional<SignTest> PairedRounds(const Analysis& a, const RunReport& report) {
  const std::map<uint32_t, double> w =
      TimePerRound(*report.variants[a.ranking[0].variant].Find(a.time_name));
  const std::map<uint32_t, double> r =
      TimePerRound(*report.variants[a.ranking[1].variant].Find(a.time_name));
  std::vector<double> differences;
  for (const auto& [round, tw] : w) {
    if (auto it = r.find(round); it != r.end() && tw > 0 && it->second > 0) {
      differences.push_back(std::log(it->second / tw));
    }
  }
  return SignTestOf(differences);
}

// An interleaved run that drifted: each round ran the two side by side, so the sign of their
// paired differences still tells, unless the drift came within rounds too. True when the rounds
// decide the verdict (the winner named, or the medians contradicted).
bool PairByRound(const std::string& drifted, const RunReport& report, double alpha, Analysis* a) {
  Verdict& v = *a->verdict;
  v.rounds = PairedRounds(*a, report);
  if (!v.rounds || v.rounds->p_value >= alpha) return false;
  const std::string w = VariantLabel(report.variants[a->ranking[0].variant]);
  const std::string r = VariantLabel(report.variants[a->ranking[1].variant]);
  const size_t ahead = v.rounds->positive, n = v.rounds->n;
  const std::string test = "sign test " + FormatPClause(v.rounds->p_value);
  if (2 * ahead > n) {
    v.distinguishable = true;
    v.text = w + " is faster than the runner-up " + r + " in " + std::to_string(ahead) + " of " +
             std::to_string(n) + " rounds (" + test + "), though " + drifted +
             ": each round ran both side by side, so the drift cancels in the pairs";
  } else {
    v.unstable = true;
    v.distinguishable = false;
    v.text = "unstable: " + drifted + "; " + r + " was faster than " + w + " in " +
             std::to_string(n - ahead) + " of " + std::to_string(n) + " rounds (" + test +
             "), against their medians: rerun it on a quiet machine";
  }
  return true;
}

void WeighDrift(const Drift& d, const RunReport& report, const AnalyzeOptions& options,
                Analysis* a) {
  if (d.test.p_value >= kDriftAlpha) return;
  Verdict& v = *a->verdict;
  const double difference = v.ratio - 1;
  const std::string change = MachineStateChange(report.machine);
  const std::string drifted = "the times drifted by " + std::string(d.change >= 0 ? "+" : "") +
                              FormatPercent(d.change * 100) +
                              " from the first half of each variant's repetitions to the " +
                              "second (Mann-Whitney " + FormatPClause(d.test.p_value) + " over " +
                              std::to_string(d.early) + " and " + std::to_string(d.late) +
                              " times" + (change.empty() ? ")" : "; meanwhile " + change + ")");
  if (std::fabs(d.change) < difference) {
    a->notes.push_back(drifted + ", less than the " + FormatPercent(difference * 100) +
                       " between the winner and the runner-up");
    return;
  }
  if (options.interleaved && PairByRound(drifted, report, options.alpha, a)) return;
  v.unstable = true;
  v.distinguishable = false;
  v.text = "unstable: " + drifted + ", as much as the " + FormatPercent(difference * 100) +
           " between " + VariantLabel(report.variants[a->ranking[0].variant]) + " and " +
           VariantLabel(report.variants[a->ranking[1].variant]) +
           ": this run cannot name a winner; rerun it on a quiet machine";
}

// Why a value or metric has no correlation, for one with `n` variants valued.
std::string NoCorrelationReason(const Analysis& a, const RunReport& report, const std::string& name,
                                bool metric, size_t n) {
  if (n >= 3) return "constant across variants: correlation undefined";
  if (n > 0) return "fewer than 3 variants with a value";
  // Why there is none, as the first variant has it: <not supported>, a metric's missing input, ...
  const VariantSummary& v = report.variants[a.ranking.front().variant];
  std::string why = "never counted";
  if (metric) {
    for (const MetricSummary& m : v.metrics) {
      if (m.name == name && !m.problem.empty()) why = m.problem;
    }
  } else if (const ValueSummary* s = v.Find(name)) {
    why = ValueStatusName(s->status);
  }
  return "no value: " + why;
}

// One value's or metric's correlation with `times` across the ranked variants.
CounterCorrelation Correlate(const Analysis& a, const RunReport& report, const std::string& name,
                             bool metric, const std::vector<double>& times) {
  CounterCorrelation c;
  c.name = name;
  c.metric = metric;
  for (const RankedVariant& rv : a.ranking) {
    if (const ValueSummary* v = report.variants[rv.variant].Find(name); v && !metric)
      c.unit = v->unit;
  }
  const std::vector<double> x = Column(a, report, name, metric);
  c.n = static_cast<size_t>(
      std::count_if(x.begin(), x.end(), [](double v) { return !std::isnan(v); }));
  c.pearson = Pearson(x, times);
  c.spearman = Spearman(x, times);
  if (!c.spearman) c.problem = NoCorrelationReason(a, report, name, metric, c.n);
  return c;
}

// Every value (but the time) and metric against the time, strongest first.
std::vector<CounterCorrelation> CorrelateWithTime(const Analysis& a, const RunReport& report) {
  const std::vector<double> times = Column(a, report, a.time_name, false);
  std::vector<CounterCorrelation> out;
  for (const std::string& name : report.value_names) {
    if (name != a.time_name) out.push_back(Correlate(a, report, name, false, times));
  }
  for (const std::string& name : report.metric_names) {
    out.push_back(Correlate(a, report, name, true, times));
  }
  RankCorrelations(&out);
  return out;
}

// A parameter's median time at each of its values; none when no ranked variant has it.
std::optional<ParamEffect> EffectOf(const Analysis& a, const RunReport& report,
                                    const std::string& param) {
  std::map<std::string, std::vector<double>> by_value;
  for (const RankedVariant& rv : a.ranking) {
    for (const auto& [k, value] : report.variants[rv.variant].params) {
      if (k == param) by_value[value].push_back(rv.median);
    }
  }
  if (by_value.empty()) return std::nullopt;
  ParamEffect e;
  e.param = param;
  for (const auto& [value, medians] : by_value) {
    e.levels.push_back({value, *Median(medians), medians.size()});
  }
  std::sort(e.levels.begin(), e.levels.end(),
            [](const ParamLevel& x, const ParamLevel& y) { return LevelBefore(x.value, y.value); });
  double lo = INFINITY, hi = 0;
  for (const ParamLevel& l : e.levels) {
    lo = std::min(lo, l.median);
    hi = std::max(hi, l.median);
  }
  e.spread = lo > 0 ? hi / lo : 1;
  return e;
}

std::vector<ParamEffect> ParamEffects(const Analysis& a, const RunReport& report) {
  std::vector<ParamEffect> out;
  for (const std::string& p : report.param_names) {
    if (auto e = EffectOf(a, report, p)) out.push_back(std::move(*e));
  }
  return out;
}

// The best and reference variants counter by counter (the clocks left out), correlated ones
// ranked in the correlations' order.
std::vector<WhyRow> WhyRows(const Analysis& a, const VariantSummary& best,
                            const VariantSummary& reference, double threshold) {
  std::vector<WhyRow> rows;
  size_t rank = 0;
  for (const CounterCorrelation& c : a.correlations) {
    if (!c.unit.empty()) continue;  // a clock: the time again
    WhyRow row;
    row.name = c.name;
    row.metric = c.metric;
    row.best = ValueOf(best, c.name, c.metric);
    row.reference = ValueOf(reference, c.name, c.metric);
    if (c.spearman) row.r = c.spearman->r;
    if (c.spearman && std::fabs(c.spearman->r) >= threshold) row.rank = ++rank;
    if (row.best || row.reference) rows.push_back(row);
  }
  return rows;
}

// The sentence's tail: the first three ranked counters' differences, or that none correlates.
std::string WhyReasons(const Analysis& a, const std::vector<WhyRow>& rows, double threshold) {
  std::string out;
  size_t told = 0;
  for (const WhyRow& row : rows) {
    if (!row.rank || told == 3 || !row.best || !row.reference) continue;
    out += "; " + row.name + " " + DifferenceText(row);
    ++told;
  }
  if (told == 0) {
    out += "; no counter correlates with " + a.time_name +
           " across the variants (|r| >= " + FormatWith("%.2f", threshold) + ")";
  }
  return out;
}

// Why it wins: against the median variant of the ranking (the runner-up when only two).
WhyItWins ExplainWin(const Analysis& a, const RunReport& report, double threshold) {
  WhyItWins why;
  why.best = 0;
  why.reference = std::max<size_t>(1, (a.ranking.size() - 1) / 2);
  const VariantSummary& b = report.variants[a.ranking[why.best].variant];
  const VariantSummary& ref = report.variants[a.ranking[why.reference].variant];
  why.speedup = a.ranking[why.best].median > 0
                    ? a.ranking[why.reference].median / a.ranking[why.best].median
                    : 1;
  why.rows = WhyRows(a, b, ref, threshold);
  const std::string ref_role = a.ranking.size() == 2 ? "the runner-up" : "the median variant";
  why.sentence = VariantLabel(b) + " is " + FormatRatio(why.speedup) + " faster than " +
                 VariantLabel(ref) + " (" + ref_role + ")" + WhyReasons(a, why.rows, threshold);
  return why;
}

}  // namespace

std::string DifferenceText(const WhyRow& row) {
  if (!row.best || !row.reference) return "-";
  const double b = *row.best, r = *row.reference;
  if (row.metric) return FormatNumber(b) + " vs " + FormatNumber(r);
  if (b == r) return "equal";
  if (b == 0 || r == 0) return b < r ? "fewer" : "more";
  return b < r ? FormatRatio(r / b) + " fewer" : FormatRatio(b / r) + " more";
}

std::string VariantLabel(const VariantSummary& v) {
  if (v.params.empty()) return v.name;
  std::string label;
  for (const auto& [k, value] : v.params) label += (label.empty() ? "" : "_") + value;
  return label;
}

namespace {

// The ranked variants on the roofline, and what the verdict says of the winner's place; a note
// when no variant declares its work.
void PlaceOnRoofline(const RunReport& report, const AnalyzeOptions& options, Analysis* a) {
  std::vector<VariantWorkTime> work;
  bool any = false;
  for (const RankedVariant& rv : a->ranking) {
    const VariantSummary& v = report.variants[rv.variant];
    any = any || !v.work.empty();
    const double per_second = a->time_unit == "ns" ? 1e-9 : 1;
    work.push_back({rv.variant, v.work.flops, v.work.bytes, rv.median * per_second});
  }
  if (!any) {
    a->roofline_note =
        "no roofline: the variants declare no work (a spec's flops: and bytes: lines, "
        "docs/KSPEC.md)";
    return;
  }
  a->precision = options.precision;
  a->has_ceilings = options.ceilings.has_value();
  a->ceilings = options.ceilings;
  a->roofline_note = options.ceilings_note;
  a->roofline = PlaceVariants(work, options.ceilings, options.precision);
  const std::string said = PlacementSentence(a->roofline.front());
  if (a->verdict && !a->verdict->unstable && !said.empty()) {
    a->verdict->text += "; the winner reaches " + said;
  }
}

}  // namespace

Result<Analysis> Analyze(const RunReport& report, const AnalyzeOptions& options) {
  Analysis a;
  a.run_id = report.run_id;
  a.param_names = report.param_names;
  a.threshold = options.threshold;
  a.alpha = options.alpha;
  // The time BuildReport ranked by: the kernel's own when every valid variant printed it.
  a.time_name = report.best_by;
  const Validity validity = SplitByValidity(report);
  if (validity.valid.empty()) {
    return NotFound("no variant of run " + report.run_id +
                    " was valid in every repetition: nothing to rank (" +
                    std::to_string(report.variants.size()) + " variants, all failed)");
  }
  if (a.time_name.empty()) {
    return NotFound("run " + report.run_id + " has no time for its valid variants");
  }
  if (!validity.left_out.empty()) a.notes.push_back(LeftOutNote(validity.left_out));
  if (!report.race.empty()) a.notes.push_back(report.race);
  if (auto noisy = NoisyTimesNote(report, a.time_name)) a.notes.push_back(*noisy);
  const size_t fewest_reps = RankByTime(report, validity.valid, &a);
  if (auto note = FewRepetitionsNote(fewest_reps)) a.notes.push_back(*note);
  if (a.ranking.size() >= 2) {
    a.verdict = CompareWinner(a, report, options.alpha);
    a.drift = DriftOf(a, report);
    if (a.drift) WeighDrift(*a.drift, report, options, &a);
  } else {
    a.notes.push_back("only one valid variant: nothing to compare it with or to correlate");
  }
  a.correlations = CorrelateWithTime(a, report);
  a.effects = ParamEffects(a, report);
  if (a.ranking.size() >= 2) a.why = ExplainWin(a, report, options.threshold);
  PlaceOnRoofline(report, options, &a);
  return a;
}

}  // namespace ktune::host
