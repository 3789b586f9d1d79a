#include "host/report/shapes_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "common/median.h"
#include "host/util/format.h"

namespace ktune::host {

std::vector<ShapeRows> SplitByShape(const std::vector<RepetitionRow>& rows) {
  // The shapes in the order of their first variant (configs.json's order, not the rounds').
  std::map<Params, uint32_t> first;
  for (const RepetitionRow& r : rows) {
    auto [it, added] = first.emplace(r.shape, r.variant_index);
    it->second = std::min(it->second, r.variant_index);
  }
  std::vector<std::pair<uint32_t, Params>> order;
  for (const auto& [shape, index] : first) order.emplace_back(index, shape);
  std::sort(order.begin(), order.end());
  std::vector<ShapeRows> out;
  std::map<Params, size_t> which;
  for (const auto& [index, shape] : order) {
    which.emplace(shape, out.size());
    out.push_back({shape, {}});
  }
  // Each shape's variant indices, renumbered in the run's order.
  std::vector<std::map<uint32_t, uint32_t>> renumber(out.size());
  for (const RepetitionRow& r : rows) renumber[which.at(r.shape)].emplace(r.variant_index, 0);
  for (auto& m : renumber) {
    uint32_t next = 0;
    for (auto& [from, to] : m) to = next++;
  }
  for (const RepetitionRow& r : rows) {
    const size_t s = which.at(r.shape);
    out[s].rows.push_back(r);
    out[s].rows.back().variant_index = renumber[s].at(r.variant_index);
  }
  return out;
}

bool SeveralShapes(const std::vector<RepetitionRow>& rows) {
  return std::any_of(rows.begin(), rows.end(),
                     [&](const RepetitionRow& r) { return r.shape != rows.front().shape; });
}

std::vector<ShapeAnalysis> AnalyzeEachShape(const std::vector<RepetitionRow>& rows,
                                            const std::vector<MetricDef>& metrics,
                                            const AnalyzeOptions& options) {
  std::vector<ShapeAnalysis> out;
  for (const ShapeRows& s : SplitByShape(rows)) {
    ShapeAnalysis sa{s.shape, BuildReport(s.rows, metrics), std::nullopt, ""};
    if (auto a = Analyze(sa.report, options); a.ok()) {
      sa.analysis = std::move(a).value();
    } else {
      sa.problem = a.status().message();
    }
    out.push_back(std::move(sa));
  }
  return out;
}

AcrossShapes CompareShapes(const std::vector<ShapeAnalysis>& shapes) {
  AcrossShapes x;
  std::map<Params, size_t> config_index;
  auto config_of = [&](const Params& params) {
    auto [it, added] = config_index.emplace(params, x.configs.size());
    if (added) {
      x.configs.push_back(params);
      x.relative.emplace_back(shapes.size());
    }
    return it->second;
  };
  for (size_t s = 0; s < shapes.size(); ++s) {
    const ShapeAnalysis& sa = shapes[s];
    x.shapes.push_back(sa.shape);
    x.problems.push_back(sa.analysis && !sa.analysis->ranking.empty() ? ""
                         : sa.problem.empty()                         ? "nothing ranked"
                                                                      : sa.problem);
    for (const std::string& p : sa.report.param_names) {
      if (std::find(x.param_names.begin(), x.param_names.end(), p) == x.param_names.end()) {
        x.param_names.push_back(p);
      }
    }
    if (!sa.analysis || sa.analysis->ranking.empty()) {
      x.winners.emplace_back();
      continue;
    }
    const Analysis& a = *sa.analysis;
    const double fastest = a.ranking.front().median;
    for (const RankedVariant& rv : a.ranking) {
      const size_t c = config_of(sa.report.variants[rv.variant].params);
      if (fastest > 0) x.relative[c][s] = rv.median / fastest;
    }
    AcrossShapes::Winner w;
    w.config = config_of(sa.report.variants[a.ranking.front().variant].params);
    w.median = fastest;
    w.time_name = a.time_name;
    w.time_unit = a.time_unit;
    if (a.verdict) {
      w.named = a.verdict->distinguishable && !a.verdict->unstable;
      w.verdict = a.verdict->text;
    }
    x.winners.push_back(std::move(w));
  }
  for (size_t c = 0; c < x.configs.size(); ++c) {
    // At every shape, or none.
    std::vector<double> at;
    for (const auto& r : x.relative[c]) {
      if (r) at.push_back(*r);
    }
    x.geomean.push_back(at.size() == x.shapes.size() ? GeometricMean(at) : std::nullopt);
    if (x.geomean[c] && (!x.overall_geomean || *x.geomean[c] < *x.overall_geomean)) {
      x.overall = c;
      x.overall_geomean = x.geomean[c];
    }
  }
  return x;
}

namespace {

std::string ConfigLabel(const AcrossShapes& x, size_t c) {
  std::string label;
  for (const auto& [name, value] : x.configs[c]) {
    label += (label.empty() ? "" : " ") + name + "=" + value;
  }
  return label.empty() ? "(no parameters)" : label;
}

std::string Relative(const std::optional<double>& r) {
  return r ? FormatRatio(*r) : "-";
}

}  // namespace

std::vector<Table> AcrossShapesTables(const AcrossShapes& x) {
  Table winners;
  winners.title = "The winner at each shape";
  winners.columns = {"shape", "winner", "time", "verdict"};
  if (x.overall) winners.columns.insert(winners.columns.begin() + 3, "best overall loses");
  winners.text_columns = 2;
  winners.trailing_text_columns = 1;
  for (size_t s = 0; s < x.shapes.size(); ++s) {
    const auto& w = x.winners[s];
    std::vector<std::string> row = {ShapeLabel(x.shapes[s])};
    if (!w) {
      row.insert(row.end(), {"none", "-"});
      if (x.overall) row.push_back("-");
      row.push_back(x.problems[s]);
      winners.AddRow(std::move(row), RowStyle::kBad);
      continue;
    }
    row.insert(row.end(), {ConfigLabel(x, w->config), FormatTime(w->median, w->time_unit)});
    if (x.overall) row.push_back(Relative(x.relative[*x.overall][s]));
    row.push_back(w->verdict.empty() ? "the only variant" : w->verdict);
    winners.AddRow(std::move(row), w->named ? RowStyle::kGood : RowStyle::kPlain);
  }
  if (x.overall) {
    winners.notes.push_back("Best overall: " + ConfigLabel(x, *x.overall) +
                            ", geometric mean of its time over each shape's fastest " +
                            FormatRatio(*x.overall_geomean) + ".");
  } else {
    winners.notes.push_back(
        "No configuration ran, valid in every repetition, at every shape: none is best overall.");
  }

  Table relative;
  relative.title = "Time relative to each shape's fastest";
  relative.columns = x.param_names;
  for (const Params& s : x.shapes) relative.columns.push_back(ShapeLabel(s));
  relative.columns.push_back("geometric mean");
  relative.text_columns = x.param_names.size();
  // Configurations at every shape by geometric mean, then the others.
  std::vector<size_t> order(x.configs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  const std::vector<std::optional<double>>& geomean = x.geomean;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (geomean[a].has_value() != geomean[b].has_value()) return geomean[a].has_value();
    return geomean[a] && *geomean[a] < *geomean[b];
  });
  for (size_t c : order) {
    std::vector<std::string> row;
    for (const std::string& p : x.param_names) row.push_back(ParamValue(x.configs[c], p, "-"));
    for (const auto& r : x.relative[c]) row.push_back(Relative(r));
    row.push_back(Relative(geomean[c]));
    relative.AddRow(std::move(row), x.overall && c == *x.overall ? RowStyle::kGood
                                    : geomean[c]                 ? RowStyle::kPlain
                                                                 : RowStyle::kDim);
  }
  relative.notes.push_back(
      "1.00x is the shape's fastest; - not measured at that shape, or not valid in every "
      "repetition.");
  return {winners, relative};
}

}  // namespace ktune::host
