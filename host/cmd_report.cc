// khost report <kernel>: renders a stored run (the newest unless --run names one) as a table,
// the long-format CSV, JSON, or the seed's perf_stats.csv.
#include <iostream>

#include "common/fs.h"
#include "common/manifest.h"
#include "host/cli.h"
#include "host/command.h"
#include "host/event_groups.h"
#include "host/report.h"
#include "host/results_dir.h"

namespace ktune {
namespace {

cxxopts::Options ReportCliOptions() {
  cxxopts::Options o("khost report", "Show the results of a run.");
  o.add_options()("kernel", "kernel name", cxxopts::value<std::string>())(
      "run", "run id (default: the newest run)", cxxopts::value<std::string>()->default_value(""))(
      "format", "table, csv, json or perf-stats",
      cxxopts::value<std::string>()->default_value("table"))(
      "o,output", "write to this file instead of stdout",
      cxxopts::value<std::string>()->default_value(""));
  AddRootOption(o);
  o.positional_help("<kernel>");
  return o;
}

}  // namespace

Result<ReportRequest> ParseReportArgs(const Args& args) {
  cxxopts::Options o = ReportCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args, {"kernel"}));
  ReportRequest req;
  req.kernel = r["kernel"].as<std::string>();
  KT_RETURN_IF_ERROR(ValidateKernelName(req.kernel));
  req.root = r["root"].as<std::string>();
  req.run_id = r["run"].as<std::string>();
  req.output = r["output"].as<std::string>();
  const std::string f = r["format"].as<std::string>();
  if (f == "table") {
    req.format = ReportFormat::kTable;
  } else if (f == "csv") {
    req.format = ReportFormat::kCsv;
  } else if (f == "json") {
    req.format = ReportFormat::kJson;
  } else if (f == "perf-stats") {
    req.format = ReportFormat::kPerfStats;
  } else {
    return InvalidArgument("unknown format '" + f + "' (table, csv, json or perf-stats)");
  }
  return req;
}

Status ExecuteReport(const ReportRequest& req) {
  const std::string run_dir = req.root + "/" + req.kernel + "/run";
  KT_ASSIGN_OR_RETURN(std::string path, FindRunFile(run_dir, req.run_id));
  KT_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  auto file = ParseResultsCsv(text);
  if (!file.ok()) return file.status().WithContext(path);
  if (file->rows.empty()) return NotFound(path + " holds no results");
  if (file->torn_lines) {
    std::cerr << "khost report: " << path << ": ignored an unterminated last line\n";
  }
  // The metrics asked for with the run, when its metadata is there.
  std::vector<MetricDef> metrics;
  if (auto meta = ReadRunMeta(RunMetaPath(path)); meta.ok()) {
    for (const RunMeta::Metric& m : meta->metrics) {
      auto def = MakeMetric(m.name, m.formula, m.group);
      if (!def.ok()) return def.status().WithContext(RunMetaPath(path));
      metrics.push_back(std::move(def).value());
    }
  }
  const RunReport report = BuildReport(file->rows, metrics);
  std::string out;
  switch (req.format) {
    case ReportFormat::kCsv:
      out = text;
      break;
    case ReportFormat::kTable:
      out = RenderTable(report);
      break;
    case ReportFormat::kJson:
      out = RenderJson(report);
      break;
    case ReportFormat::kPerfStats:
      out = RenderPerfStats(report);
      break;
  }
  if (!req.output.empty()) return WriteFileAtomic(req.output, out);
  std::cout << out;
  return Status::Ok();
}

int ReportMain(const Args& args) {
  return CommandMain("report", ReportCliOptions, ParseReportArgs, ExecuteReport, args);
}

}  // namespace ktune
