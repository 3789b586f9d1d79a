#include "host/report/analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "common/csv.h"
#include "common/strings.h"

namespace ktune::host {
namespace {

std::string Format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// A count or ratio as people read it: integers with no decimals, others to 4 significant digits.
std::string Number(double v) {
  if (std::fabs(v) >= 1e15) return Format("%.4g", v);
  if (v == std::round(v)) return Format("%.0f", v);
  return Format("%.4g", v);
}

std::string PValue(double p) {
  return p < 0.0001 ? "< 0.0001" : Format("%.4f", p);
}

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

// The ranked variants' medians of one value or metric, NaN where a variant has none.
std::vector<double> Column(const Analysis& a, const RunReport& report, const std::string& name,
                           bool metric) {
  std::vector<double> out;
  for (const RankedVariant& rv : a.ranking) {
    const VariantSummary& v = report.variants[rv.variant];
    const auto x = metric ? MetricValue(v, name) : UsableMedian(v, name);
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

std::string Ratio(double r) {
  return Format(r >= 10 ? "%.1fx" : "%.2fx", r);
}

// "3.1x fewer", "1.4x more", "equal" for counts; the plain pair for metrics.
std::string Difference(const WhyRow& row) {
  if (!row.best || !row.reference) return "-";
  const double b = *row.best, r = *row.reference;
  if (row.metric) return Number(b) + " vs " + Number(r);
  if (b == r) return "equal";
  if (b == 0 || r == 0) return b < r ? "fewer" : "more";
  return b < r ? Ratio(r / b) + " fewer" : Ratio(b / r) + " more";
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

}  // namespace

std::string VariantLabel(const VariantSummary& v) {
  if (v.params.empty()) return v.name;
  std::string label;
  for (const auto& [k, value] : v.params) label += (label.empty() ? "" : "_") + value;
  return label;
}

TimeDisplay DisplayFor(double value, const std::string& unit) {
  const double to_seconds = unit == "ns" ? 1e-9 : 1;
  const double seconds = std::fabs(value) * to_seconds;
  if (seconds >= 1 || seconds == 0) return {to_seconds, "s"};
  if (seconds >= 1e-3) return {to_seconds * 1e3, "ms"};
  return {to_seconds * 1e6, "us"};
}

std::string FormatTime(double value, const std::string& unit) {
  if (unit != "ns" && unit != "s") return Number(value) + (unit.empty() ? "" : " " + unit);
  const TimeDisplay d = DisplayFor(value, unit);
  return Format("%.4g", value * d.per_unit) + " " + d.name;
}

Result<Analysis> Analyze(const RunReport& report, const AnalyzeOptions& options) {
  Analysis a;
  a.run_id = report.run_id;
  a.param_names = report.param_names;
  a.threshold = options.threshold;
  std::vector<std::string> left_out;
  std::vector<size_t> valid;
  for (size_t i = 0; i < report.variants.size(); ++i) {
    const VariantSummary& v = report.variants[i];
    if (v.all_valid()) {
      valid.push_back(i);
    } else {
      left_out.push_back(v.name + " (" + std::to_string(v.valid) + "/" +
                         std::to_string(v.repetitions) + " valid, " + v.failure + ")");
    }
  }
  // The time BuildReport ranked by: the kernel's own when every valid variant printed it.
  a.time_name = report.best_by;
  if (valid.empty()) {
    return NotFound("no variant of run " + report.run_id +
                    " was valid in every repetition: nothing to rank (" +
                    std::to_string(report.variants.size()) + " variants, all failed)");
  }
  if (a.time_name.empty()) {
    return NotFound("run " + report.run_id + " has no time for its valid variants");
  }
  if (!left_out.empty()) {
    std::string list;
    for (size_t i = 0; i < left_out.size() && i < 5; ++i) list += (i ? "; " : "") + left_out[i];
    if (left_out.size() > 5) list += "; ...";
    a.notes.push_back(std::to_string(left_out.size()) + " variant(s) failed in some repetition " +
                      "and are left out: " + list);
  }

  // Ranking, fastest first.
  size_t fewest_reps = SIZE_MAX;
  for (size_t i : valid) {
    const ValueSummary* t = report.variants[i].Find(a.time_name);
    a.time_unit = t->unit;
    RankedVariant rv;
    rv.variant = i;
    rv.median = *t->median;
    rv.ci = t->ci;
    rv.n = t->counted;
    rv.cv = t->cv;
    fewest_reps = std::min(fewest_reps, rv.n);
    a.ranking.push_back(rv);
  }
  std::stable_sort(
      a.ranking.begin(), a.ranking.end(),
      [](const RankedVariant& x, const RankedVariant& y) { return x.median < y.median; });
  const size_t need = MinValuesForMedianInterval(0.95);
  if (fewest_reps < need) {
    a.notes.push_back(std::to_string(fewest_reps) +
                      " repetition(s) for some variant: a 95% confidence interval of the median "
                      "needs " +
                      std::to_string(need) + " (khost run --reps " + std::to_string(need) +
                      "); intervals are left out where they are missing");
  }

  // The winner against the runner-up.
  if (a.ranking.size() >= 2) {
    Verdict v;
    v.winner = 0;
    v.runner_up = 1;
    const RankedVariant& w = a.ranking[0];
    const RankedVariant& r = a.ranking[1];
    v.ratio = w.median > 0 ? r.median / w.median : 1;
    const VariantSummary& wv = report.variants[w.variant];
    const VariantSummary& rv = report.variants[r.variant];
    v.test = MannWhitneyU(wv.Find(a.time_name)->sample, rv.Find(a.time_name)->sample);
    const std::string wl = VariantLabel(wv), rl = VariantLabel(rv);
    const std::string times = FormatTime(w.median, a.time_unit) + " vs " +
                              FormatTime(r.median, a.time_unit) + ", " + Ratio(v.ratio);
    if (!v.test) {
      v.text = wl + " is fastest (" + times + "), but there are no repetition times to test it";
    } else {
      const std::string test = "Mann-Whitney U = " + Number(v.test->u) +
                               ", p = " + PValue(v.test->p_value) + " over " + std::to_string(w.n) +
                               " and " + std::to_string(r.n) + " repetitions";
      v.distinguishable = v.test->p_value < options.alpha;
      v.text = v.distinguishable
                   ? wl + " is faster than the runner-up " + rl + " (" + times + "; " + test + ")"
                   : wl + " and the runner-up " + rl + " are not distinguishable (" + times + "; " +
                         test + "): more repetitions may tell them apart";
    }
    a.verdict = v;
  } else {
    a.notes.push_back("only one valid variant: nothing to compare it with or to correlate");
  }

  // Correlations of every value and metric with the time, across the ranked variants.
  const std::vector<double> times = Column(a, report, a.time_name, false);
  auto correlate = [&](const std::string& name, bool metric) {
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
    if (!c.spearman) {
      if (c.n == 0) {
        // Why there is none, as the first variant has it: <not supported>, a metric's missing
        // input, ...
        const VariantSummary& v = report.variants[a.ranking.front().variant];
        std::string why = "never counted";
        if (metric) {
          for (const MetricSummary& m : v.metrics) {
            if (m.name == name && !m.problem.empty()) why = m.problem;
          }
        } else if (const ValueSummary* s = v.Find(name)) {
          why = ValueStatusName(s->status);
        }
        c.problem = "no value: " + why;
      } else if (c.n < 3) {
        c.problem = "fewer than 3 variants with a value";
      } else {
        c.problem = "constant across variants: correlation undefined";
      }
    }
    a.correlations.push_back(std::move(c));
  };
  for (const std::string& name : report.value_names) {
    if (name != a.time_name) correlate(name, false);
  }
  for (const std::string& name : report.metric_names) correlate(name, true);
  RankCorrelations(&a.correlations);

  // Parameter effects: median time at each value.
  for (const std::string& p : report.param_names) {
    std::map<std::string, std::vector<double>> by_value;
    for (const RankedVariant& rv : a.ranking) {
      for (const auto& [k, value] : report.variants[rv.variant].params) {
        if (k == p) by_value[value].push_back(rv.median);
      }
    }
    if (by_value.empty()) continue;  // no ranked variant has it
    ParamEffect e;
    e.param = p;
    for (const auto& [value, medians] : by_value) {
      e.levels.push_back({value, *Median(medians), medians.size()});
    }
    std::sort(e.levels.begin(), e.levels.end(), [](const ParamLevel& x, const ParamLevel& y) {
      return LevelBefore(x.value, y.value);
    });
    double lo = INFINITY, hi = 0;
    for (const ParamLevel& l : e.levels) {
      lo = std::min(lo, l.median);
      hi = std::max(hi, l.median);
    }
    e.spread = lo > 0 ? hi / lo : 1;
    a.effects.push_back(std::move(e));
  }

  // Why it wins: against the median variant of the ranking (the runner-up when only two).
  if (a.ranking.size() >= 2) {
    WhyItWins why;
    why.best = 0;
    why.reference = std::max<size_t>(1, (a.ranking.size() - 1) / 2);
    const VariantSummary& b = report.variants[a.ranking[why.best].variant];
    const VariantSummary& ref = report.variants[a.ranking[why.reference].variant];
    why.speedup = a.ranking[why.best].median > 0
                      ? a.ranking[why.reference].median / a.ranking[why.best].median
                      : 1;
    size_t rank = 0;
    for (const CounterCorrelation& c : a.correlations) {
      if (!c.unit.empty()) continue;  // a clock: the time again
      WhyRow row;
      row.name = c.name;
      row.metric = c.metric;
      row.best = c.metric ? MetricValue(b, c.name) : UsableMedian(b, c.name);
      row.reference = c.metric ? MetricValue(ref, c.name) : UsableMedian(ref, c.name);
      if (c.spearman) row.r = c.spearman->r;
      if (c.spearman && std::fabs(c.spearman->r) >= options.threshold) row.rank = ++rank;
      if (row.best || row.reference) why.rows.push_back(row);
    }
    const std::string ref_role = a.ranking.size() == 2 ? "the runner-up" : "the median variant";
    why.sentence = VariantLabel(b) + " is " + Ratio(why.speedup) + " faster than " +
                   VariantLabel(ref) + " (" + ref_role + ")";
    size_t told = 0;
    for (const WhyRow& row : why.rows) {
      if (!row.rank || told == 3 || !row.best || !row.reference) continue;
      why.sentence += "; " + row.name + " " + Difference(row);
      ++told;
    }
    if (told == 0) {
      why.sentence += "; no counter correlates with " + a.time_name +
                      " across the variants (|r| >= " + Format("%.2f", options.threshold) + ")";
    }
    a.why = why;
  }
  return a;
}

std::vector<Table> AnalysisTables(const Analysis& a, const RunReport& report) {
  std::vector<Table> tables;

  Table rank;
  rank.title = "run " + a.run_id + ": variants by median " + a.time_name +
               " (95% confidence interval of the median)";
  rank.columns = {"rank", "variant"};
  for (const std::string& p : a.param_names) rank.columns.push_back(p);
  rank.columns.insert(rank.columns.end(), {"median", "95% CI", "n", "CV", "outliers"});
  rank.text_columns = 2;
  for (size_t i = 0; i < a.ranking.size(); ++i) {
    const RankedVariant& rv = a.ranking[i];
    const VariantSummary& v = report.variants[rv.variant];
    std::vector<std::string> row = {std::to_string(i + 1), v.name};
    for (const std::string& p : a.param_names) {
      std::string value = "-";
      for (const auto& [k, val] : v.params) {
        if (k == p) value = val;
      }
      row.push_back(value);
    }
    row.push_back(FormatTime(rv.median, a.time_unit));
    row.push_back(rv.ci ? "[" + FormatTime(rv.ci->low, a.time_unit) + ", " +
                              FormatTime(rv.ci->high, a.time_unit) + "]"
                        : "-");
    row.push_back(std::to_string(rv.n));
    row.push_back(rv.cv ? Format("%.1f%%", *rv.cv * 100) : "-");
    const ValueSummary* t = v.Find(a.time_name);
    row.push_back(t && !t->outliers.empty() ? std::to_string(t->outliers.size()) : "0");
    rank.AddRow(std::move(row), i == 0 ? RowStyle::kGood : RowStyle::kPlain);
  }
  if (a.verdict) rank.notes.push_back("verdict: " + a.verdict->text);
  for (const std::string& n : a.notes) rank.notes.push_back("note: " + n);
  tables.push_back(std::move(rank));

  if (a.why) {
    const VariantSummary& b = report.variants[a.ranking[a.why->best].variant];
    const VariantSummary& ref = report.variants[a.ranking[a.why->reference].variant];
    Table why;
    why.title = "why it wins: " + a.why->sentence;
    why.columns = {"counter", VariantLabel(b) + " (best)", VariantLabel(ref), "difference", "rank",
                   "r"};
    for (const WhyRow& row : a.why->rows) {
      why.AddRow(
          {row.name + (row.metric ? " (metric)" : ""), row.best ? Number(*row.best) : "-",
           row.reference ? Number(*row.reference) : "-", Difference(row),
           row.rank ? std::to_string(*row.rank) : "-", row.r ? Format("%+.3f", *row.r) : "-"},
          row.rank ? RowStyle::kPlain : RowStyle::kDim);
    }
    why.notes.push_back("rank: among the counters and metrics whose |Spearman r| with " +
                        a.time_name + " is at least " + Format("%.2f", a.threshold) +
                        " (the other clocks are left out: they are the time again)");
    tables.push_back(std::move(why));
  }

  Table corr;
  corr.title = "correlation with " + a.time_name + " across " + std::to_string(a.ranking.size()) +
               " variants (ranked by |Spearman r|)";
  corr.columns = {"counter", "n", "spearman r", "spearman p", "pearson r", "pearson p", "note"};
  corr.trailing_text_columns = 1;
  for (const CounterCorrelation& c : a.correlations) {
    const std::string name = c.name + (c.metric ? " (metric)" : "");
    if (!c.spearman) {
      corr.AddRow({name, std::to_string(c.n), "-", "-", "-", "-", c.problem}, RowStyle::kDim);
      continue;
    }
    const bool strong = std::fabs(c.spearman->r) >= a.threshold;
    corr.AddRow({name, std::to_string(c.n), Format("%+.3f", c.spearman->r),
                 PValue(c.spearman->p_value), c.pearson ? Format("%+.3f", c.pearson->r) : "-",
                 c.pearson ? PValue(c.pearson->p_value) : "-", ""},
                strong ? RowStyle::kGood : RowStyle::kPlain);
  }
  tables.push_back(std::move(corr));

  for (const ParamEffect& e : a.effects) {
    Table t;
    t.title = "effect of " + e.param + ": median " + a.time_name +
              " of the variants at each value" + " (slowest / fastest " + Ratio(e.spread) + ")";
    t.columns = {e.param, "variants", "median"};
    t.text_columns = 0;  // parameter values are numbers
    double best = INFINITY;
    for (const ParamLevel& l : e.levels) best = std::min(best, l.median);
    for (const ParamLevel& l : e.levels) {
      t.AddRow({l.value, std::to_string(l.variants), FormatTime(l.median, a.time_unit)},
               l.median == best ? RowStyle::kGood : RowStyle::kPlain);
    }
    tables.push_back(std::move(t));
  }
  return tables;
}

std::string HighCorrelationsCsv(const Analysis& a) {
  std::vector<const CounterCorrelation*> high;
  for (const CounterCorrelation& c : a.correlations) {
    if (c.pearson && std::fabs(c.pearson->r) > a.threshold) high.push_back(&c);
  }
  std::stable_sort(high.begin(), high.end(), [](const auto* x, const auto* y) {
    return std::fabs(x->pearson->r) > std::fabs(y->pearson->r);
  });
  std::string out = "Metric,Correlation,P-Value\n";
  for (const CounterCorrelation* c : high) {
    out +=
        CsvJoin({c->name, FormatDouble(c->pearson->r), FormatDouble(c->pearson->p_value)}) + "\n";
  }
  return out;
}

}  // namespace ktune::host
