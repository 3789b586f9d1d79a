#include "host/report/history_report.h"

#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "host/report/html_report.h"
#include "host/util/format.h"

namespace ktune::host {

const char* const kHistoryTest =
    "a change is a regression (slower) or an improvement when the two runs' 95% confidence "
    "intervals of the median (distribution-free) do not overlap; same: they overlap; no "
    "verdict: a run has fewer than 6 repetitions, too few for an interval";

namespace {

std::string Short(const std::string& hash) {
  return hash.substr(0, 12);
}

nlohmann::ordered_json StepsJson(const std::vector<HistoryStep>& steps) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const HistoryStep& s : steps) {
    const HistoryPoint& p = s.point;
    out.push_back({{"run_id", p.run_id},
                   {"started_ns", p.started_ns},
                   {"config", p.config},
                   {"metric", p.metric},
                   {"median_ns", p.median_ns},
                   {"ci_low_ns", p.ci_low_ns ? nlohmann::ordered_json(*p.ci_low_ns) : nullptr},
                   {"ci_high_ns", p.ci_high_ns ? nlohmann::ordered_json(*p.ci_high_ns) : nullptr},
                   {"n", p.n},
                   {"ratio_to_previous", s.ratio},
                   {"change", ChangeName(s.change)},
                   {"ktune_version", p.ktune_version},
                   {"toolchain", p.toolchain},
                   {"spec_hash", p.spec_hash},
                   {"source_key", p.source_key}});
  }
  return out;
}

}  // namespace

Table HistoryTable(const History& h, bool best) {
  Table t;
  t.title = best ? "the best of each run" : "configuration " + h.config;
  t.columns = {"run", "started (UTC)"};
  if (best) t.columns.push_back("configuration");
  for (const char* c :
       {"median", "95% CI", "n", "vs previous", "change", "ktune", "toolchain", "spec"}) {
    t.columns.push_back(c);
  }
  t.text_columns = best ? 3 : 2;
  for (const HistoryStep& s : best ? h.best_steps : h.config_steps) {
    const HistoryPoint& p = s.point;
    std::vector<std::string> row = {p.run_id, UtcText(p.started_ns / 1'000'000, false)};
    if (best) row.push_back(p.config);
    const bool first = s.change == Change::kFirst;
    row.insert(
        row.end(),
        {FormatTime(p.median_ns, "ns"), FormatMedianInterval(p.ci_low_ns, p.ci_high_ns),
         std::to_string(p.n), first ? "" : FormatPercent((s.ratio - 1) * 100),
         first ? "" : ChangeName(s.change), p.ktune_version, p.toolchain, Short(p.spec_hash)});
    t.AddRow(std::move(row), s.change == Change::kRegression    ? RowStyle::kBad
                             : s.change == Change::kImprovement ? RowStyle::kGood
                                                                : RowStyle::kPlain);
  }
  t.notes.push_back(kHistoryTest);
  return t;
}

std::string HistoryJson(const History& h) {
  nlohmann::ordered_json j = {{"schema", 1},        {"kernel", h.kernel},
                              {"board", h.board},   {"shape", FormatParams(h.shape)},
                              {"config", h.config}, {"test", kHistoryTest}};
  j["config_runs"] = StepsJson(h.config_steps);
  j["best_runs"] = StepsJson(h.best_steps);
  return j.dump(2) + "\n";
}

std::string RenderHistoryHtml(const History& h, const std::string& svg,
                              const std::string& plots_note) {
  const std::string title = h.kernel + " at " + ShapeLabel(h.shape) + ": history";
  std::string out = HtmlPageStart(title);
  out += "<p class=\"about\">" + HtmlEscape("board " + h.board + " (" + h.board_source + ")") +
         "</p>\n";
  if (!svg.empty()) out += "<figure>" + InlineSvg(svg) + "</figure>\n";
  if (!plots_note.empty()) out += "<p class=\"about\">" + HtmlEscape(plots_note) + "</p>\n";
  out += "<h2>" + HtmlEscape("Configuration " + h.config) + "</h2>\n";
  out += RenderHtmlTable(HistoryTable(h, false));
  out += "<h2>The best of each run</h2>\n";
  out += RenderHtmlTable(HistoryTable(h, true));
  out += "<p class=\"about\">" + HtmlEscape(kHistoryTest) + "</p>\n";
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace ktune::host
