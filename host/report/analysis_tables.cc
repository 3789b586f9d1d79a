#include "host/report/analysis_tables.h"

#include <algorithm>
#include <cmath>

#include "common/csv.h"
#include "common/strings.h"
#include "host/util/format.h"

namespace ktune::host {
namespace {

// A variant's value of a parameter, "-" when it has none.
Table RankingTable(const Analysis& a, const RunReport& report) {
  Table rank;
  rank.title = "run " + a.run_id + ": variants by median " + a.time_name +
               " (95% confidence interval of the median)";
  rank.columns = {"rank", "variant"};
  for (const std::string& p : a.param_names) rank.columns.push_back(p);
  rank.short_columns = {"", ""};
  for (const std::string& p : ShortenedNames(a.param_names)) rank.short_columns.push_back(p);
  rank.columns.insert(rank.columns.end(), {"median", "95% CI", "n", "CV", "outliers"});
  rank.text_columns = 2;
  for (size_t i = 0; i < a.ranking.size(); ++i) {
    const RankedVariant& rv = a.ranking[i];
    const VariantSummary& v = report.variants[rv.variant];
    std::vector<std::string> row = {std::to_string(i + 1), v.name};
    for (const std::string& p : a.param_names) row.push_back(v.Param(p, "-"));
    row.push_back(FormatTime(rv.median, a.time_unit));
    row.push_back(rv.ci ? "[" + FormatTime(rv.ci->low, a.time_unit) + ", " +
                              FormatTime(rv.ci->high, a.time_unit) + "]"
                        : "-");
    row.push_back(std::to_string(rv.n));
    row.push_back(rv.cv ? FormatPercent(*rv.cv * 100) : "-");
    const ValueSummary* t = v.Find(a.time_name);
    row.push_back(t && !t->outliers.empty() ? std::to_string(t->outliers.size()) : "0");
    rank.AddRow(std::move(row), i == 0 ? RowStyle::kGood : RowStyle::kPlain);
  }
  if (a.verdict) rank.notes.push_back("verdict: " + a.verdict->text);
  for (const std::string& n : a.notes) rank.notes.push_back("note: " + n);
  if (!a.roofline_note.empty()) rank.notes.push_back("note: " + a.roofline_note);
  return rank;
}

Table WhyTable(const Analysis& a, const WhyItWins& w, const RunReport& report) {
  const VariantSummary& b = report.variants[a.ranking[w.best].variant];
  const VariantSummary& ref = report.variants[a.ranking[w.reference].variant];
  Table why;
  why.title = "why it wins: " + w.sentence;
  why.columns = {"counter", VariantLabel(b) + " (best)", VariantLabel(ref), "difference", "rank",
                 "r"};
  for (const WhyRow& row : w.rows) {
    why.AddRow(
        {row.name + (row.metric ? " (metric)" : ""), row.best ? FormatNumber(*row.best) : "-",
         row.reference ? FormatNumber(*row.reference) : "-", DifferenceText(row),
         row.rank ? std::to_string(*row.rank) : "-", row.r ? FormatCorrelation(*row.r) : "-"},
        row.rank ? RowStyle::kPlain : RowStyle::kDim);
  }
  why.notes.push_back("rank: among the counters and metrics whose |Spearman r| with " +
                      a.time_name + " is at least " + FormatWith("%.2f", a.threshold) +
                      " (the other clocks are left out: they are the time again)");
  return why;
}

Table CorrelationTable(const Analysis& a) {
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
    corr.AddRow(
        {name, std::to_string(c.n), FormatCorrelation(c.spearman->r),
         FormatPValue(c.spearman->p_value), c.pearson ? FormatCorrelation(c.pearson->r) : "-",
         c.pearson ? FormatPValue(c.pearson->p_value) : "-", ""},
        strong ? RowStyle::kGood : RowStyle::kPlain);
  }
  return corr;
}

Table EffectTable(const Analysis& a, const ParamEffect& e) {
  Table t;
  t.title = "effect of " + e.param + ": median " + a.time_name + " of the variants at each value" +
            " (slowest / fastest " + FormatRatio(e.spread) + ")";
  t.columns = {e.param, "variants", "median"};
  t.text_columns = 0;  // parameter values are numbers
  double best = INFINITY;
  for (const ParamLevel& l : e.levels) best = std::min(best, l.median);
  for (const ParamLevel& l : e.levels) {
    t.AddRow({l.value, std::to_string(l.variants), FormatTime(l.median, a.time_unit)},
             l.median == best ? RowStyle::kGood : RowStyle::kPlain);
  }
  return t;
}

// The ranked variants' work rates, and their place under the board's ceilings when it has them.
Table RooflineTable(const Analysis& a, const RunReport& report) {
  Table t;
  t.title = "roofline: each variant's work over its median " + a.time_name +
            (a.has_ceilings ? ", under the board's ceilings (" + a.precision + ")" : "");
  t.columns = {"rank", "variant", "GFLOP/s", "GB/s", "FLOP/byte"};
  if (a.has_ceilings) {
    t.columns.insert(t.columns.end(), {"level", "attainable GFLOP/s", "of attainable", "bound"});
  }
  t.text_columns = 2;
  const auto number = [](const std::optional<double>& v) {
    return v ? FormatNumber(*v) : std::string("-");
  };
  for (size_t i = 0; i < a.roofline.size(); ++i) {
    const Placement& p = a.roofline[i];
    std::vector<std::string> row = {std::to_string(i + 1), report.variants[p.variant].name,
                                    number(p.gflops), number(p.gbytes_s), number(p.intensity)};
    if (a.has_ceilings) {
      row.insert(row.end(), {p.level.empty() ? "-" : p.level, number(p.attainable_gflops),
                             p.fraction ? FormatPercent(*p.fraction * 100) : "-",
                             p.bound.empty() ? "-" : p.bound});
    }
    t.AddRow(std::move(row), i == 0 ? RowStyle::kGood : RowStyle::kPlain);
  }
  t.notes.push_back("work: one call's flops and bytes as the kernel's spec declares them");
  return t;
}

}  // namespace

std::vector<Table> AnalysisTables(const Analysis& a, const RunReport& report) {
  std::vector<Table> tables;
  tables.push_back(RankingTable(a, report));
  if (a.why) tables.push_back(WhyTable(a, *a.why, report));
  tables.push_back(CorrelationTable(a));
  for (const ParamEffect& e : a.effects) tables.push_back(EffectTable(a, e));
  if (!a.roofline.empty()) tables.push_back(RooflineTable(a, report));
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
