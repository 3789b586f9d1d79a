#include "host/report/search_report.h"

#include <cmath>
#include <limits>

#include "common/strings.h"
#include "host/util/format.h"

namespace ktune::host {
namespace {

// The index of the best evaluation, or the size when none is feasible.
size_t BestIndex(const Evaluations& e) {
  size_t best = e.rows.size();
  for (size_t i = 0; i < e.rows.size(); ++i) {
    if (e.rows[i].time_ns && (best == e.rows.size() || *e.rows[i].time_ns < *e.rows[best].time_ns))
      best = i;
  }
  return best;
}

}  // namespace

std::string SearchLabel(const std::string& id, const Evaluations& evaluations) {
  for (const std::string& c : evaluations.comments) {
    if (!c.starts_with("strategy ")) continue;
    const std::string_view rest = std::string_view(c).substr(9);
    const std::vector<std::string_view> parts = Split(rest, ',');
    std::string label(Trim(parts[0]));
    if (parts.size() > 1 && Trim(parts[1]).starts_with("seed ")) {
      label += ", " + std::string(Trim(parts[1]));
    }
    return label;
  }
  return id;
}

std::vector<double> BestSoFar(const Evaluations& evaluations) {
  std::vector<double> out;
  double best = std::numeric_limits<double>::infinity();
  for (const Evaluation& e : evaluations.rows) {
    if (e.time_ns) best = std::min(best, *e.time_ns);
    out.push_back(best);
  }
  return out;
}

Table SearchSummaryTable(const std::vector<SearchSeries>& searches) {
  Table t;
  t.title = "Searches";
  t.columns = {"search", "strategy", "evaluations",       "infeasible",
               "best",   "found at", "best configuration"};
  t.text_columns = 2;
  t.trailing_text_columns = 1;
  for (const SearchSeries& s : searches) {
    size_t infeasible = 0;
    for (const Evaluation& e : s.evaluations.rows) infeasible += !e.time_ns;
    const size_t best = BestIndex(s.evaluations);
    const bool any = best < s.evaluations.rows.size();
    t.AddRow({s.id, s.label, std::to_string(s.evaluations.rows.size()), std::to_string(infeasible),
              any ? FormatTime(*s.evaluations.rows[best].time_ns, "ns") : "-",
              any ? std::to_string(best + 1) : "-",
              any ? ConfigText(s.evaluations.names, s.evaluations.rows[best].config) : "none ran"});
  }
  return t;
}

Table EvaluationsTable(const SearchSeries& search) {
  const Evaluations& e = search.evaluations;
  Table t;
  t.title = "Search " + search.id + " (" + search.label + "): every configuration evaluated";
  t.columns = {"#"};
  t.columns.insert(t.columns.end(), e.names.begin(), e.names.end());
  t.columns.insert(t.columns.end(), {"time", "status", "run"});
  t.text_columns = 0;
  t.trailing_text_columns = 2;
  const size_t best = BestIndex(e);
  for (size_t i = 0; i < e.rows.size(); ++i) {
    const Evaluation& x = e.rows[i];
    std::vector<std::string> row = {std::to_string(i + 1)};
    for (int64_t v : x.config) row.push_back(std::to_string(v));
    row.push_back(x.time_ns ? FormatTime(*x.time_ns, "ns") : "-");
    row.push_back(x.status);
    row.push_back(x.run);
    t.AddRow(std::move(row), i == best   ? RowStyle::kGood
                             : x.time_ns ? RowStyle::kPlain
                                         : RowStyle::kBad);
  }
  return t;
}

}  // namespace ktune::host
