// khost history: a configuration's time and the best time of a kernel, run after run, from the
// tuning database, each change beyond the runs' intervals flagged (host/db/history.h); tables,
// JSON, and an HTML page with the plot.
#include "host/cli/cmd_history.h"

#include <iostream>

#include "common/fs.h"
#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/db/tuning_db.h"
#include "host/report/history_report.h"
#include "host/report/plots.h"
#include "host/results/shape_sets.h"
#include "host/tune/shapes.h"

namespace ktune::host {

cxxopts::Options HistoryCliOptions() {
  cxxopts::Options o("khost history",
                     "A kernel's times run after run from the tuning database: a configuration's "
                     "and the best's, with regressions and improvements flagged.");
  o.add_options(kArgumentsGroup)("kernel", "kernel name", cxxopts::value<std::string>(),
                                 "<kernel>");
  o.add_options()(
      "config",
      "the configuration to follow, 'BLOCK_SIZE_M=8 BLOCK_SIZE_N=64 ...' (else the newest run's "
      "fastest)",
      cxxopts::value<std::string>()->default_value(""))(
      "board", "an agent's name or a CPU fingerprint (else the board of the kernel's newest run)",
      cxxopts::value<std::string>()->default_value(""))(
      "shape", "the problem shape, 'M=64 N=64 K=64' (else the newest)",
      cxxopts::value<std::string>()->default_value(""))(
      "format", "console, csv, json or markdown",
      cxxopts::value<std::string>()->default_value("console"))(
      "html", "also write DIR/history.html, with the plot (gnuplot)",
      cxxopts::value<std::string>()->default_value(""));
  AddWideOption(o);
  AddDbOption(o);
  return o;
}

namespace {

// NAME=VALUE pairs separated by spaces, as --shape takes them, but any value.
Result<Params> ParsePairs(const std::string& option, const std::string& text) {
  Params out;
  for (const std::string& word : SplitWords(text)) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == word.size()) {
      return InvalidArgument("--" + option + " '" + text + "': expected NAME=VALUE pairs");
    }
    out.emplace_back(word.substr(0, eq), word.substr(eq + 1));
  }
  return out;
}

}  // namespace

Result<HistoryRequest> ParseHistoryArgs(const Args& args) {
  cxxopts::Options o = HistoryCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args));
  HistoryRequest req;
  req.kernel = r["kernel"].as<std::string>();
  req.board = r["board"].as<std::string>();
  req.db = r["db"].as<std::string>();
  if (req.db == "none") return InvalidArgument("--db none: khost history reads a database");
  const std::string shape = r["shape"].as<std::string>();
  auto set = ParseShapeSet(shape);
  if (!set.ok()) return set.status().WithContext("--shape '" + shape + "'");
  req.shape = ShapeParams(*set);
  KT_ASSIGN_OR_RETURN(req.config, ParsePairs("config", r["config"].as<std::string>()));
  const std::string format = r["format"].as<std::string>();
  if (!ParseTableFormat(format, &req.format)) {
    return InvalidArgument("--format '" + format + "': console, csv, json or markdown");
  }
  req.html = r["html"].as<std::string>();
  req.wide = r.count("wide") > 0;
  return req;
}

namespace {

// DIR/history.html with the plot, or with why there is none.
Status WriteHistoryHtml(const History& h, const std::string& dir) {
  KT_RETURN_IF_ERROR(MakeDirs(dir));
  const Plot plot = HistoryPlot(h);
  std::string svg, note;
  if (plot.data.empty()) {
    note = "No plot: no run measured the configuration.";
  } else if (const Status drew = DrawPlots({plot}, dir); !drew.ok()) {
    note = "No plot: " + drew.message();
    std::cerr << "khost history: " << drew.message() << "\n";
  } else {
    KT_ASSIGN_OR_RETURN(svg, ReadFile(dir + "/" + plot.name + ".svg"));
  }
  KT_RETURN_IF_ERROR(WriteFileAtomic(dir + "/history.html", RenderHistoryHtml(h, svg, note)));
  std::cerr << "khost history: wrote " << dir << "/history.html\n";
  return Status::Ok();
}

Status ExecuteHistory(const HistoryRequest& req) {
  KT_ASSIGN_OR_RETURN(std::unique_ptr<TuningDb> db, OpenDbFor(req.db, /*create=*/false));
  KT_ASSIGN_OR_RETURN(const History h, db->HistoryOf({.kernel = req.kernel,
                                                      .board = req.board,
                                                      .shape = req.shape,
                                                      .shape_given = !req.shape.empty(),
                                                      .config = req.config}));
  if (req.format == TableFormat::kJson) {
    std::cout << HistoryJson(h);
  } else {
    if (req.format == TableFormat::kConsole) {
      std::cout << "history of " << h.kernel << " at " << ShapeLabel(h.shape) << " on " << h.board
                << " (" << h.board_source << ")\n\n";
    }
    std::cout << RenderAll({HistoryTable(h, false), HistoryTable(h, true)}, req.format,
                           req.format == TableFormat::kConsole && StdoutWantsColour(),
                           ConsoleWidth(req.wide));
  }
  return req.html.empty() ? Status::Ok() : WriteHistoryHtml(h, req.html);
}

}  // namespace

int HistoryMain(const Args& args) {
  return CommandMain("history", HistoryCliOptions, ParseHistoryArgs, ExecuteHistory, args);
}

}  // namespace ktune::host
