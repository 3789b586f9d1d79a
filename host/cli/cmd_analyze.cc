// khost analyze <kernel>: for a stored run (the newest unless --run names one), which variant
// wins and whether the win is real, which counters explain it, and what each parameter does
// (host/report/analysis.h). Prints the tables (table, markdown or csv) or the model as JSON, and
// writes, into the analysis directory, the seed's high_correlations.csv, the model as
// analysis.json (host/report/json_model.h), the plots (PNG and SVG, through gnuplot) and one
// self-contained report.html. With --search, the searches of khost
// tune --strategy instead: how each went, their convergence plot and what they evaluated
// (search.html).
#include <filesystem>
#include <iostream>

#include "common/fs.h"
#include "common/manifest.h"
#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/cli/cmd_analyze.h"
#include "host/report/analysis.h"
#include "host/report/analysis_tables.h"
#include "host/report/html_report.h"
#include "host/report/json_model.h"
#include "host/report/plots.h"
#include "host/report/report.h"
#include "host/report/roofline.h"
#include "host/report/search_report.h"
#include "host/report/shapes_report.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "host/roofline/roofline_service.h"
#include "host/search/search_files.h"

namespace ktune::host {
namespace fs = std::filesystem;

cxxopts::Options AnalyzeCliOptions() {
  cxxopts::Options o("khost analyze",
                     "Which variant wins, whether the win is real, and which counters explain it.");
  o.add_options(kArgumentsGroup)("kernel", "kernel name", cxxopts::value<std::string>(),
                                 "<kernel>");
  o.add_options()("run", "run id (default: the newest run)",
                  cxxopts::value<std::string>()->default_value(""))(
      "format", "table, markdown, csv or json",
      cxxopts::value<std::string>()->default_value("table"))(
      "threshold",
      "|r| from which a counter counts as correlated (and goes to high_correlations.csv)",
      cxxopts::value<std::string>()->default_value("0.7"))(
      "heatmap", "the two parameters of the heat map: X,Y (default: the first two)",
      cxxopts::value<std::vector<std::string>>())(
      "counters", "scatter plots of this many of the most correlated counters",
      cxxopts::value<std::string>()->default_value("3"))("no-plots", "draw no plots")(
      "out", "where to write (default: <root>/<kernel>/run/analysis/<run id>)",
      cxxopts::value<std::string>()->default_value(""))(
      "search",
      "show searches (khost tune --strategy) instead of a run: their ids, comma-separated, or "
      "all (written to <root>/<kernel>/run/analysis/searches)",
      cxxopts::value<std::string>());
  AddRootOption(o);
  AddWideOption(o);
  AddDbOption(o);
  return o;
}

Result<AnalyzeRequest> ParseAnalyzeArgs(const Args& args) {
  cxxopts::Options o = AnalyzeCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args));
  AnalyzeRequest req;
  req.kernel = r["kernel"].as<std::string>();
  KT_RETURN_IF_ERROR(ValidateKernelName(req.kernel));
  req.root = r["root"].as<std::string>();
  req.run_id = r["run"].as<std::string>();
  req.wide = r.count("wide") > 0;
  if (const std::string f = r["format"].as<std::string>(); !ParseTableFormat(f, &req.format)) {
    return InvalidArgument("unknown format '" + f + "' (table, markdown, csv or json)");
  }
  KT_ASSIGN_OR_RETURN(req.threshold, RealOption(r, "threshold", 0, 1, "a correlation |r|"));
  if (r.count("heatmap")) {
    const auto xy = r["heatmap"].as<std::vector<std::string>>();
    if (xy.size() != 2 || xy[0].empty() || xy[1].empty() || xy[0] == xy[1]) {
      return InvalidArgument("--heatmap takes two different parameters: X,Y");
    }
    req.heat_x = xy[0];
    req.heat_y = xy[1];
  }
  KT_ASSIGN_OR_RETURN(req.counters,
                      IntegerOption(r, "counters", 0, 1000, "a whole number of plots"));
  req.plots = r.count("no-plots") == 0;
  req.out_dir = r["out"].as<std::string>();
  req.db = r["db"].as<std::string>();
  if (r.count("search")) {
    for (const char* o : {"run", "threshold", "heatmap", "counters"}) {
      if (r.count(o))
        return InvalidArgument(std::string("--") + o + " goes with a run, not --search");
    }
    for (std::string_view id : Split(r["search"].as<std::string>(), ',')) {
      if (id.empty()) return InvalidArgument("--search takes search ids, comma-separated, or all");
      req.searches.emplace_back(id);
    }
  }
  return req;
}

namespace {

// What the HTML report says of the run: the agent, its CPU and the events measured.
std::string AboutRun(const LoadedRun& run) {
  if (!run.meta) return "";
  std::string about = "agent " + run.meta->agent + ", " + run.meta->cpu;
  if (!run.meta->events.empty()) about += "; events " + Join(run.meta->events, ", ");
  return about;
}

// Draws the plots into `out` and adds them to the HTML report; returns how many were drawn.
// Without gnuplot the tables and the rest still stand: the report says why there are no plots.
Result<size_t> DrawInto(const AnalyzeRequest& req, const std::vector<Plot>& plots,
                        const std::string& out, HtmlInputs* html) {
  if (!req.plots) {
    html->plots_note = "No plots (--no-plots).";
    return 0;
  }
  const Status drew = DrawPlots(plots, out);
  if (!drew.ok()) {
    html->plots_note = "No plots: " + drew.message();
    std::cerr << "khost analyze: " << drew.message() << "\n";
    return 0;
  }
  for (const Plot& p : plots) {
    KT_ASSIGN_OR_RETURN(std::string svg, ReadFile(out + "/" + p.name + ".svg"));
    html->plots.push_back({p.name, std::move(svg)});
  }
  return plots.size();
}

// The searches --search names, each journal read.
Result<std::vector<SearchSeries>> LoadSearches(const std::string& run_dir,
                                               const std::vector<std::string>& ids) {
  std::vector<std::string> paths;
  if (ids == std::vector<std::string>{"all"}) {
    paths = IdFilesIn(SearchesDir(run_dir));
    if (paths.empty()) {
      return NotFound("no search in " + SearchesDir(run_dir) + " (khost tune --strategy first)");
    }
  } else {
    for (const std::string& id : ids) {
      KT_ASSIGN_OR_RETURN(std::string path, FindSearchFile(run_dir, id));
      paths.push_back(std::move(path));
    }
  }
  std::vector<SearchSeries> out;
  for (const std::string& path : paths) {
    KT_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
    auto e = ParseEvaluations(text);
    if (!e.ok()) return e.status().WithContext(path);
    if (const std::string w = EvaluationsWarning(*e); !w.empty()) {
      std::cerr << "khost analyze: " << path << ": " << w << "\n";
    }
    const std::string id = fs::path(path).stem().string();
    out.push_back({id, SearchLabel(id, *e), std::move(e).value()});
  }
  return out;
}

Status ExecuteSearchAnalysis(const AnalyzeRequest& req) {
  KT_ASSIGN_OR_RETURN(const std::string run_dir, RunDirBeneath(req.root, req.kernel));
  KT_ASSIGN_OR_RETURN(const std::vector<SearchSeries> searches,
                      LoadSearches(run_dir, req.searches));
  std::vector<Table> tables = {SearchSummaryTable(searches)};
  for (const SearchSeries& s : searches) tables.push_back(EvaluationsTable(s));
  std::cout << RenderAll(tables, req.format,
                         req.format == TableFormat::kConsole && StdoutWantsColour(),
                         ConsoleWidth(req.wide));
  const std::string out = req.out_dir.empty() ? run_dir + "/analysis/searches" : req.out_dir;
  KT_RETURN_IF_ERROR(MakeDirs(out));
  const Plot plot = ConvergencePlot(searches);
  std::string svg, note;
  if (!req.plots) {
    note = "No plots (--no-plots).";
  } else if (plot.data.empty()) {
    note = "No plot: no search measured a configuration.";
  } else if (const Status drew = DrawPlots({plot}, out); !drew.ok()) {
    note = "No plots: " + drew.message();
    std::cerr << "khost analyze: " << drew.message() << "\n";
  } else {
    KT_ASSIGN_OR_RETURN(svg, ReadFile(out + "/" + plot.name + ".svg"));
  }
  KT_RETURN_IF_ERROR(
      WriteFileAtomic(out + "/search.html", RenderSearchHtml(req.kernel, searches, svg, note)));
  std::cerr << "khost analyze: wrote " << out << " (search.html"
            << (svg.empty() ? "" : ", convergence.png and .svg") << ")\n";
  return Status::Ok();
}

// The ceilings khost roofline kept for the run's board; none, and why, when the database is
// off or has none (analyze then gives the variants' rates alone).
void CeilingsFor(const AnalyzeRequest& req, const LoadedRun& run, AnalyzeOptions& options) {
  const std::string board = run.rows.empty() ? "" : run.rows.front().board;
  const std::string measure = "khost roofline --agent <its agent> measures them";
  Result<std::optional<DbChoice>> where = DbFor(req.db);
  if (!where.ok() || !*where) {
    options.ceilings_note = "no ceilings: no tuning database (" + measure + ")";
    return;
  }
  Result<std::unique_ptr<TuningDb>> db = TuningDb::Open(**where, /*create=*/false);
  Result<std::optional<Ceilings>> stored =
      db.ok() ? StoredCeilings(**db, board) : Result<std::optional<Ceilings>>(db.status());
  if (stored.ok() && *stored) {
    options.ceilings = **stored;
    options.ceilings_note = EmulatorNote(board);
  } else {
    options.ceilings_note = "no ceilings for board " + board + " yet (" + measure + ")";
  }
}

AnalyzeOptions OptionsFor(const AnalyzeRequest& req, const LoadedRun& run) {
  AnalyzeOptions options;
  options.threshold = req.threshold;
  options.interleaved = run.meta && run.meta->order == "interleaved";
  CeilingsFor(req, run, options);
  return options;
}

// An analysis (of a run, or of one shape of a run of several) written into `out`: its tables
// (printed too when `print`), plots and report.html. Returns how many plots were drawn.
Result<size_t> WriteAnalysis(const AnalyzeRequest& req, const LoadedRun& run,
                             const RunReport& report, Analysis a, const std::string& out,
                             bool print) {
  for (std::string& n : SystemNotes(run.meta ? run.meta->system : std::nullopt)) {
    a.notes.push_back(std::move(n));
  }
  PlotOptions po;
  po.counters = req.counters;
  po.heat_x = req.heat_x;
  po.heat_y = req.heat_y;
  // Planned before anything is printed or written: a --heatmap naming no parameter stops here.
  KT_ASSIGN_OR_RETURN(std::vector<Plot> plots, PlanPlots(a, report, po));
  const std::vector<Table> tables = AnalysisTables(a, report);
  const std::string json = RenderAnalysisJson(a, report);
  if (print) {
    std::cout << (req.format == TableFormat::kJson
                      ? json
                      : RenderAll(tables, req.format,
                                  req.format == TableFormat::kConsole && StdoutWantsColour(),
                                  ConsoleWidth(req.wide)));
  }
  KT_RETURN_IF_ERROR(MakeDirs(out));
  KT_RETURN_IF_ERROR(WriteFileAtomic(out + "/high_correlations.csv", HighCorrelationsCsv(a)));
  KT_RETURN_IF_ERROR(WriteFileAtomic(out + "/analysis.json", json));
  HtmlInputs html;
  html.kernel = req.kernel;
  html.about = AboutRun(run);
  KT_ASSIGN_OR_RETURN(const size_t drawn, DrawInto(req, plots, out, &html));
  KT_RETURN_IF_ERROR(WriteFileAtomic(out + "/report.html", RenderHtmlReport(a, report, html)));
  return drawn;
}

// A run of several shapes: each analyzed into a directory of its own under `out`, then the
// shapes side by side (printed, and shapes.html, shapes.json, the heat map). A shape that cannot
// be analyzed (no variant valid in every repetition) is said and compared as having no winner;
// a bad option or a file that cannot be written stops the command.
Status AnalyzeShapes(const AnalyzeRequest& req, const LoadedRun& run, const std::string& out) {
  const std::vector<ShapeAnalysis> shapes =
      AnalyzeEachShape(run.rows, run.metrics, OptionsFor(req, run));
  std::vector<std::string> links;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const ShapeAnalysis& sa = shapes[i];
    std::string dir = ShapeDirName(sa.shape);
    if (dir.empty()) dir = "shape-" + std::to_string(i + 1);
    links.push_back(dir + "/report.html");
    if (!sa.analysis) {
      std::cerr << "khost analyze: shape " << ShapeLabel(sa.shape) << ": " << sa.problem << "\n";
      continue;
    }
    KT_RETURN_IF_ERROR(
        WriteAnalysis(req, run, sa.report, *sa.analysis, out + "/" + dir, /*print=*/false)
            .status());
  }
  const AcrossShapes across = CompareShapes(shapes);
  const std::vector<Table> tables = AcrossShapesTables(across);
  std::cout << RenderAll(tables, req.format,
                         req.format == TableFormat::kConsole && StdoutWantsColour(),
                         ConsoleWidth(req.wide));
  KT_RETURN_IF_ERROR(MakeDirs(out));
  KT_RETURN_IF_ERROR(WriteFileAtomic(out + "/shapes.json", RenderAll(tables, TableFormat::kJson)));
  HtmlInputs html;
  html.kernel = req.kernel;
  html.about = AboutRun(run);
  const Plot heat = ShapesHeatMap(across);
  std::string svg;
  if (!req.plots) {
    html.plots_note = "No plots (--no-plots).";
  } else if (heat.data.empty()) {
    html.plots_note = "No plot: no configuration was ranked at any shape.";
  } else if (const Status drew = DrawPlots({heat}, out); !drew.ok()) {
    html.plots_note = "No plots: " + drew.message();
    std::cerr << "khost analyze: " << drew.message() << "\n";
  } else {
    KT_ASSIGN_OR_RETURN(svg, ReadFile(out + "/" + heat.name + ".svg"));
  }
  KT_RETURN_IF_ERROR(
      WriteFileAtomic(out + "/shapes.html", RenderShapesHtml(html, across, svg, links)));
  std::cerr << "khost analyze: wrote " << out << " (shapes.html, shapes.json"
            << (svg.empty() ? "" : ", shapes_heatmap.png and .svg")
            << ", and a report per shape in " << shapes.size() << " directories)\n";
  return Status::Ok();
}

Status ExecuteAnalyze(const AnalyzeRequest& req) {
  if (!req.searches.empty()) return ExecuteSearchAnalysis(req);
  KT_ASSIGN_OR_RETURN(const std::string run_dir, RunDirBeneath(req.root, req.kernel));
  KT_ASSIGN_OR_RETURN(LoadedRun run, LoadRun(run_dir, req.run_id));
  PrintRunWarnings("analyze", run);
  // Named after the results file (a run id khost chose, or a file name), not after what the
  // file says.
  const std::string out = req.out_dir.empty()
                              ? run_dir + "/analysis/" + fs::path(run.path).stem().string()
                              : req.out_dir;
  if (SeveralShapes(run.rows)) return AnalyzeShapes(req, run, out);
  RunReport report = BuildRunReport(run);
  AddRace(run, &report);
  KT_ASSIGN_OR_RETURN(Analysis a, Analyze(report, OptionsFor(req, run)));
  KT_ASSIGN_OR_RETURN(const size_t drawn,
                      WriteAnalysis(req, run, report, std::move(a), out, /*print=*/true));
  std::cerr << "khost analyze: wrote " << out << " (report.html, high_correlations.csv, "
            << "analysis.json, " << drawn << " plots as PNG and SVG)\n";
  return Status::Ok();
}

}  // namespace

int AnalyzeMain(const Args& args) {
  return CommandMain("analyze", AnalyzeCliOptions, ParseAnalyzeArgs, ExecuteAnalyze, args);
}

}  // namespace ktune::host
