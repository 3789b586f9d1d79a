// khost report <kernel>: renders a stored run (the newest unless --run names one) as a table,
// the long-format CSV, JSON, or the seed's perf_stats.csv.
#include <algorithm>
#include <iostream>

#include "common/fs.h"
#include "common/manifest.h"
#include "host/cli.h"
#include "host/command.h"
#include "host/event_groups.h"
#include "host/kernel_dir.h"
#include "host/report.h"
#include "host/results_dir.h"
#include "host/samples.h"

namespace ktune {
namespace {

cxxopts::Options ReportCliOptions() {
  cxxopts::Options o("khost report", "Show the results of a run.");
  o.add_options()("kernel", "kernel name", cxxopts::value<std::string>())(
      "run", "run id (default: the newest run)", cxxopts::value<std::string>()->default_value(""))(
      "format", "table, csv, json or perf-stats",
      cxxopts::value<std::string>()->default_value("table"))(
      "o,output", "write to this file instead of stdout",
      cxxopts::value<std::string>()->default_value(""))(
      "samples", "the sampling profile (khost run --record): symbols by share of each event")(
      "annotate", "show this variant's disassembly with each instruction's share of the samples",
      cxxopts::value<std::string>()->default_value(""))(
      "event", "the sampled event to annotate (default: the first)",
      cxxopts::value<std::string>()->default_value(""))(
      "top", "symbols shown per event", cxxopts::value<size_t>()->default_value("10"));
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
  req.samples = r.count("samples") > 0;
  req.annotate = r["annotate"].as<std::string>();
  req.event = r["event"].as<std::string>();
  req.top = r["top"].as<size_t>();
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
  const std::string kernel_symbol = req.kernel + "_kernel";
  KT_ASSIGN_OR_RETURN(const std::vector<VariantSamples> samples,
                      LoadRunSamples(path, file->rows, req.root, kernel_symbol));
  if ((req.samples || !req.annotate.empty()) && samples.empty()) {
    return NotFound("run " + file->rows.front().run_id +
                    " sampled nothing (khost run --record EVENTS samples)");
  }
  std::string out;
  if (!req.annotate.empty()) {
    auto v = std::find_if(samples.begin(), samples.end(),
                          [&](const VariantSamples& s) { return s.name == req.annotate; });
    if (v == samples.end()) return NotFound("no samples of a variant named " + req.annotate);
    if (v->events.empty()) return NotFound(v->name + " has no sampled event");
    const std::string event = req.event.empty() ? v->events.front().event : req.event;
    // The variant's disassembly, when configs.json names one that is there.
    std::string disassembly;
    if (auto dir = LoadKernelDir(req.root, req.kernel); dir.ok()) {
      for (const KernelVariant& kv : dir->variants) {
        if (kv.name != v->name || kv.asm_path.empty()) continue;
        const std::string asm_file =
            kv.asm_path.starts_with("/") ? kv.asm_path : req.root + "/" + kv.asm_path;
        if (auto text = ReadFile(asm_file); text.ok()) disassembly = *text;
      }
    }
    out = RenderAnnotated(*v, event, disassembly);
  } else if (req.samples) {
    if (req.format == ReportFormat::kJson) {
      out = RenderSamplesJson(samples);
    } else if (req.format == ReportFormat::kTable) {
      out = RenderSamplesTable(samples, req.top, kernel_symbol);
    } else {
      return InvalidArgument("--samples reports as a table or JSON");
    }
  } else {
    const RunReport report = BuildReport(file->rows, metrics);
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
        out = RenderPerfStats(report, KernelPeriodColumns(samples, kernel_symbol));
        break;
    }
  }
  if (!req.output.empty()) return WriteFileAtomic(req.output, out);
  std::cout << out;
  return Status::Ok();
}

int ReportMain(const Args& args) {
  return CommandMain("report", ReportCliOptions, ParseReportArgs, ExecuteReport, args);
}

}  // namespace ktune
