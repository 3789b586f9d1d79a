// One self-contained HTML file per analyzed run: the verdict, why the winner wins, the ranking,
// correlations, parameter effects and every value, as tables, with the plots' SVGs inline.
// Nothing is loaded from elsewhere (no scripts, no links), so the file can be mailed or
// archived as it is.
#pragma once

#include <string>
#include <vector>

#include "host/report/analysis.h"
#include "host/report/report.h"
#include "host/report/search_report.h"
#include "host/report/shapes_report.h"
#include "host/report/table.h"

namespace ktune::host {

struct HtmlPlot {
  std::string name;  // as host/report/plots.h names them: time_by_variant, time_vs_*, heatmap_*
  std::string svg;   // the whole SVG document gnuplot wrote
};

struct HtmlInputs {
  std::string kernel;
  std::string about;  // a line on where it ran: agent, CPU, events
  std::vector<HtmlPlot> plots;
  std::string plots_note;  // why there are no plots, when there are none
};

// "<table>" of `table`, every cell escaped.
std::string RenderHtmlTable(const Table& table);

std::string RenderHtmlReport(const Analysis& a, const RunReport& report, const HtmlInputs& in);

// One self-contained page of searches (khost analyze --search): the summary, the convergence
// plot (`convergence_svg`, "" with `plots_note` saying why there is none), and every search's
// evaluations.
std::string RenderSearchHtml(const std::string& kernel, const std::vector<SearchSeries>& searches,
                             const std::string& convergence_svg, const std::string& plots_note);

// One page of a run measured at several shapes (khost analyze): the winner at each shape, the
// shapes x configurations table and its heat map (`heatmap_svg`, "" with `plots_note` saying why
// there is none), and a link to each shape's own report (`shape_reports`, relative paths in the
// order of across.shapes).
std::string RenderShapesHtml(const HtmlInputs& in, const AcrossShapes& across,
                             const std::string& heatmap_svg,
                             const std::vector<std::string>& shape_reports);

// A page's start, up to and with its <h1>: the doctype, the title and the report's style.
std::string HtmlPageStart(const std::string& title);
// gnuplot's SVG from its <svg element on ("" when it has none): the XML declaration and DOCTYPE
// cannot stand inside HTML.
std::string InlineSvg(const std::string& svg);

// Text made safe inside HTML elements and attributes.
std::string HtmlEscape(const std::string& text);

}  // namespace ktune::host
