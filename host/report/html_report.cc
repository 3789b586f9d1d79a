#include "host/report/html_report.h"

#include "host/report/analysis_tables.h"

namespace ktune::host {
namespace {

const char* kStyle = R"(
body { font-family: sans-serif; margin: 2em auto; max-width: 72em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
p.about { color: #555; } p.verdict { font-size: 1.1em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { padding: 0.2em 0.6em; border-bottom: 1px solid #e4e4e4; }
th { text-align: left; background: #f4f4f4; } td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.good td { background: #e8f5e9; } tr.bad td { background: #fdecea; } tr.dim td { color: #888; }
caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
ul.notes { color: #555; } figure { margin: 1em 0; } svg { max-width: 100%; height: auto; }
)";

const char* RowClass(RowStyle s) {
  switch (s) {
    case RowStyle::kGood:
      return " class=\"good\"";
    case RowStyle::kBad:
      return " class=\"bad\"";
    case RowStyle::kDim:
      return " class=\"dim\"";
    case RowStyle::kPlain:
      break;
  }
  return "";
}

}  // namespace

std::string InlineSvg(const std::string& svg) {
  const size_t at = svg.find("<svg");
  return at == std::string::npos ? "" : svg.substr(at);
}

std::string HtmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderHtmlTable(const Table& table) {
  std::string out = "<table>\n";
  if (!table.title.empty()) out += "<caption>" + HtmlEscape(table.title) + "</caption>\n";
  out += "<tr>";
  for (const std::string& c : table.columns) out += "<th>" + HtmlEscape(c) + "</th>";
  out += "</tr>\n";
  for (size_t r = 0; r < table.rows.size(); ++r) {
    out += "<tr" +
           std::string(RowClass(r < table.styles.size() ? table.styles[r] : RowStyle::kPlain)) +
           ">";
    for (size_t i = 0; i < table.rows[r].size(); ++i) {
      out += (table.IsText(i) ? "<td>" : "<td class=\"num\">") + HtmlEscape(table.rows[r][i]) +
             "</td>";
    }
    out += "</tr>\n";
  }
  out += "</table>\n";
  if (!table.notes.empty()) {
    out += "<ul class=\"notes\">\n";
    for (const std::string& n : table.notes) out += "<li>" + HtmlEscape(n) + "</li>\n";
    out += "</ul>\n";
  }
  return out;
}

std::string RenderHtmlReport(const Analysis& a, const RunReport& report, const HtmlInputs& in) {
  const std::vector<Table> tables = AnalysisTables(a, report);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<title>" + HtmlEscape("ktune " + in.kernel + ": run " + a.run_id) + "</title>\n";
  out += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  out += "<h1>" + HtmlEscape(in.kernel + ": run " + a.run_id) + "</h1>\n";
  if (!in.about.empty()) out += "<p class=\"about\">" + HtmlEscape(in.about) + "</p>\n";
  if (a.verdict) {
    out += "<h2>Verdict</h2>\n<p class=\"verdict\">" + HtmlEscape(a.verdict->text) + "</p>\n";
  }
  auto figures = [&](const std::string& prefix) {
    std::string f;
    for (const HtmlPlot& p : in.plots) {
      if (p.name.starts_with(prefix)) f += "<figure>" + InlineSvg(p.svg) + "</figure>\n";
    }
    return f;
  };
  // tables: [0] ranking, then why-it-wins when there is one, correlations, parameter effects,
  // the roofline when there is one.
  size_t next = 1;
  if (a.why) out += "<h2>Why it wins</h2>\n" + RenderHtmlTable(tables[next++]);
  out += "<h2>Variants</h2>\n" + RenderHtmlTable(tables[0]) + figures("time_by_variant");
  out += "<h2>Correlations</h2>\n" + RenderHtmlTable(tables[next++]) + figures("time_vs_");
  if (!a.effects.empty()) {
    out += "<h2>Parameters</h2>\n";
    for (size_t e = 0; e < a.effects.size(); ++e) out += RenderHtmlTable(tables[next++]);
    out += figures("heatmap_");
  }
  if (!a.roofline.empty()) {
    out += "<h2>Roofline</h2>\n" + RenderHtmlTable(tables[next++]) + figures("roofline");
  }
  if (!in.plots_note.empty()) out += "<p class=\"about\">" + HtmlEscape(in.plots_note) + "</p>\n";
  out += "<h2>Every value</h2>\n" + RenderHtmlTable(ReportTable(report));
  out += "</body>\n</html>\n";
  return out;
}

std::string RenderShapesHtml(const HtmlInputs& in, const AcrossShapes& across,
                             const std::string& heatmap_svg,
                             const std::vector<std::string>& shape_reports) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<title>" + HtmlEscape("ktune " + in.kernel + ": shapes") + "</title>\n";
  out += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  out += "<h1>" + HtmlEscape(in.kernel + ": " + std::to_string(across.shapes.size()) + " shapes") +
         "</h1>\n";
  if (!in.about.empty()) out += "<p class=\"about\">" + HtmlEscape(in.about) + "</p>\n";
  const std::vector<Table> tables = AcrossShapesTables(across);
  out += RenderHtmlTable(tables[0]);
  out += "<h2>Each shape</h2>\n<ul>\n";
  for (size_t s = 0; s < across.shapes.size() && s < shape_reports.size(); ++s) {
    out += "<li><a href=\"" + HtmlEscape(shape_reports[s]) + "\">" +
           HtmlEscape(ShapeLabel(across.shapes[s])) + "</a></li>\n";
  }
  out += "</ul>\n<h2>Relative time</h2>\n";
  if (!heatmap_svg.empty()) out += "<figure>" + InlineSvg(heatmap_svg) + "</figure>\n";
  if (!in.plots_note.empty()) out += "<p class=\"about\">" + HtmlEscape(in.plots_note) + "</p>\n";
  for (size_t t = 1; t < tables.size(); ++t) out += RenderHtmlTable(tables[t]);
  out += "</body>\n</html>\n";
  return out;
}

std::string HtmlPageStart(const std::string& title) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<title>" + HtmlEscape("ktune " + title) + "</title>\n";
  out += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  return out + "<h1>" + HtmlEscape(title) + "</h1>\n";
}

std::string RenderSearchHtml(const std::string& kernel, const std::vector<SearchSeries>& searches,
                             const std::string& convergence_svg, const std::string& plots_note) {
  std::string out = HtmlPageStart(kernel + ": searches");
  out += RenderHtmlTable(SearchSummaryTable(searches));
  out += "<h2>Convergence</h2>\n";
  if (!convergence_svg.empty()) out += "<figure>" + InlineSvg(convergence_svg) + "</figure>\n";
  if (!plots_note.empty()) out += "<p class=\"about\">" + HtmlEscape(plots_note) + "</p>\n";
  for (const SearchSeries& s : searches) {
    out += "<h2>" + HtmlEscape("Search " + s.id) + "</h2>\n";
    for (const std::string& c : s.evaluations.comments) {
      out += "<p class=\"about\">" + HtmlEscape(c) + "</p>\n";
    }
    out += RenderHtmlTable(EvaluationsTable(s));
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace ktune::host
