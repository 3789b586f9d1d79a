// khost report <kernel>: renders a stored run (the newest unless --run names one) as a table
// (colour on a terminal), Markdown, the long-format CSV, JSON, or the seed's perf_stats.csv; its
// samples or a variant's annotated disassembly; or two runs side by side (--compare A B).
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "common/fs.h"
#include "common/manifest.h"
#include "host/cli/cli.h"
#include "host/cli/cmd_report.h"
#include "host/db/run_recorder.h"
#include "host/events/event_groups.h"
#include "host/measure/run_service.h"
#include "host/report/compare.h"
#include "host/report/json_model.h"
#include "host/report/perf_stats.h"
#include "host/report/report.h"
#include "host/report/samples_report.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "host/results/samples.h"
#include "host/util/user_paths.h"

namespace ktune::host {
cxxopts::Options ReportCliOptions() {
  cxxopts::Options o("khost report", "Show the results of a run.");
  o.add_options(kArgumentsGroup)("kernel", "kernel name", cxxopts::value<std::string>(),
                                 "<kernel>");
  o.add_options()("run", "run id (default: the newest run)",
                  cxxopts::value<std::string>()->default_value(""))(
      "format", "table, markdown, csv (the long results file), json or perf-stats",
      cxxopts::value<std::string>()->default_value("table"))(
      "o,output", "write to this file instead of stdout",
      cxxopts::value<std::string>()->default_value(""))(
      "compare",
      "two runs side by side: RUN_A,RUN_B (run ids of this kernel, or results .csv files); the "
      "ratio of each variant's median time and whether it is significant",
      cxxopts::value<std::vector<std::string>>())(
      "samples", "the sampling profile (khost run --record): symbols by share of each event")(
      "annotate", "show this variant's disassembly with each instruction's share of the samples",
      cxxopts::value<std::string>()->default_value(""))(
      "event", "the sampled event to annotate (default: the first)",
      cxxopts::value<std::string>()->default_value(""))(
      "top", "symbols shown per event", cxxopts::value<std::string>()->default_value("10"))(
      "fetch",
      "first fetch the run's rows from the agent's journal (after khost was killed or the link "
      "was lost; the run may still be measuring)");
  AddRootOption(o);
  AddAgentOption(o);
  AddDbOption(o);
  AddWideOption(o);
  return o;
}

namespace {

// Colour only for a table going to a terminal.
bool Colour(const ReportRequest& req) {
  return req.format == TableFormat::kConsole && req.output.empty() && StdoutWantsColour();
}

Status ExecuteCompare(const ReportRequest& req, const std::string& run_dir, std::string* out) {
  KT_ASSIGN_OR_RETURN(LoadedRun a, LoadRun(run_dir, req.compare[0]));
  KT_ASSIGN_OR_RETURN(LoadedRun b, LoadRun(run_dir, req.compare[1]));
  PrintRunWarnings("report", a);
  PrintRunWarnings("report", b);
  KT_ASSIGN_OR_RETURN(RunComparison c, CompareRuns(BuildRunReport(a), BuildRunReport(b)));
  *out = Render(ComparisonTable(c), req.format, Colour(req), ConsoleWidth(req.wide));
  return Status::Ok();
}

// --fetch: the run's rows that the agent's journal holds into the local file (the newest local
// run, or --run's, which need not be here yet).
Status Fetch(const ReportRequest& req, const std::string& run_dir) {
  KT_ASSIGN_OR_RETURN(const std::optional<DbChoice> db, DbFor(req.db));
  RunRecorder recorder("khost report", db, req.root);
  KT_ASSIGN_OR_RETURN(const ReceivedRun got, FetchRun({.command = "khost report",
                                                       .kernel = req.kernel,
                                                       .run_dir = run_dir,
                                                       .run_id = req.run_id,
                                                       .agent = req.agent,
                                                       .token_file = req.token_file,
                                                       .recorder = &recorder}));
  std::cerr << "khost report: fetched run " << std::filesystem::path(got.run.path).stem().string()
            << ": " << got.rows_new << " new rows, " << got.run.rows.size() << " of "
            << got.rows_planned
            << (got.complete ? " (complete)"
                             : " (not complete: khost run --resume measures the rest)")
            << "\n";
  return Status::Ok();
}

// A variant's disassembly with each instruction's share of the samples of one event.
Result<std::string> RenderAnnotation(const ReportRequest& req,
                                     const std::vector<VariantSamples>& samples) {
  auto v = std::find_if(samples.begin(), samples.end(),
                        [&](const VariantSamples& s) { return s.name == req.annotate; });
  if (v == samples.end()) return NotFound("no samples of a variant named " + req.annotate);
  const auto same = std::count_if(samples.begin(), samples.end(),
                                  [&](const VariantSamples& s) { return s.name == req.annotate; });
  if (same > 1) {  // one ELF run at several shapes
    return InvalidArgument(req.annotate + " was sampled at " + std::to_string(same) +
                           " shapes of this run; annotate a run of one (khost run --shape ... " +
                           "--record)");
  }
  if (v->events.empty()) return NotFound(v->name + " has no sampled event");
  const std::string event = req.event.empty() ? v->events.front().event : req.event;
  // The variant's disassembly, when configs.json names one that is there.
  std::string disassembly;
  if (auto dir = LoadKernelDir(req.root, req.kernel); dir.ok()) {
    for (const KernelVariant& kv : dir->variants) {
      if (kv.name != v->name || kv.asm_path.empty()) continue;
      if (auto text = ReadBeneath(req.root, kv.asm_path); text.ok()) disassembly = *text;
    }
  }
  return RenderAnnotated(*v, event, disassembly);
}

// --samples: the symbols by share of each sampled event (json: the whole profile, IPs included).
Result<std::string> RenderSamples(const ReportRequest& req,
                                  const std::vector<VariantSamples>& samples,
                                  const std::string& kernel_symbol) {
  if (req.perf_stats) return InvalidArgument("--samples has no perf-stats format");
  if (req.format == TableFormat::kJson) return RenderSamplesJson(samples);
  return RenderAll(SamplesTables(samples, req.top, kernel_symbol), req.format, Colour(req),
                   ConsoleWidth(req.wide));
}

// The measurements in the format asked (csv: the long results file as it is).
Result<std::string> RenderMeasurements(const ReportRequest& req, const LoadedRun& run,
                                       const std::vector<VariantSamples>& samples,
                                       const std::string& kernel_symbol) {
  RunReport report = BuildRunReport(run);
  AddRace(run, &report);
  for (std::string& n : SystemNotes(run.meta ? run.meta->system : std::nullopt)) {
    report.notes.push_back(std::move(n));
  }
  if (req.perf_stats) {
    return RenderPerfStats(report, KernelPeriodColumns(samples, kernel_symbol));
  }
  switch (req.format) {
    case TableFormat::kCsv: {  // the rows as read: one run of lines per repetition, each once
      std::string csv = std::string(kResultsHeader) + "\n";
      for (const RepetitionRow& row : run.rows) csv += ToCsvLines(row);
      return csv;
    }
    case TableFormat::kConsole:
      return RenderTable(report, Colour(req), ConsoleWidth(req.wide));
    case TableFormat::kMarkdown:
      return RenderMarkdown(ReportTable(report));
    case TableFormat::kJson:
      return RenderReportJson(report);
  }
  return InternalError("unknown table format");
}

Result<std::string> RenderReport(const ReportRequest& req) {
  KT_ASSIGN_OR_RETURN(const std::string run_dir, RunDirBeneath(req.root, req.kernel));
  std::string out;
  if (!req.compare.empty()) {
    KT_RETURN_IF_ERROR(ExecuteCompare(req, run_dir, &out));
    return out;
  }
  if (req.fetch) KT_RETURN_IF_ERROR(Fetch(req, run_dir));
  KT_ASSIGN_OR_RETURN(LoadedRun run, LoadRun(run_dir, req.run_id));
  PrintRunWarnings("report", run);
  const std::string kernel_symbol = KernelSymbol(req.kernel);
  KT_ASSIGN_OR_RETURN(const std::vector<VariantSamples> samples,
                      LoadRunSamples(run.path, run.rows, req.root, kernel_symbol));
  if ((req.samples || !req.annotate.empty()) && samples.empty()) {
    return NotFound("run " + run.rows.front().run_id +
                    " sampled nothing (khost run --record EVENTS samples)");
  }
  if (!req.annotate.empty()) return RenderAnnotation(req, samples);
  if (req.samples) return RenderSamples(req, samples, kernel_symbol);
  return RenderMeasurements(req, run, samples, kernel_symbol);
}

}  // namespace

Result<ReportRequest> ParseReportArgs(const Args& args) {
  cxxopts::Options o = ReportCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args));
  ReportRequest req;
  req.kernel = r["kernel"].as<std::string>();
  KT_RETURN_IF_ERROR(ValidateKernelName(req.kernel));
  req.root = r["root"].as<std::string>();
  req.run_id = r["run"].as<std::string>();
  req.output = r["output"].as<std::string>();
  req.samples = r.count("samples") > 0;
  req.annotate = r["annotate"].as<std::string>();
  req.event = r["event"].as<std::string>();
  KT_ASSIGN_OR_RETURN(req.top, IntegerOption(r, "top", 1, 100000, "a whole number of symbols"));
  req.fetch = r.count("fetch") > 0;
  req.wide = r.count("wide") > 0;
  req.agent = r["agent"].as<std::string>();
  req.token_file = r["token-file"].as<std::string>();
  req.db = r["db"].as<std::string>();
  if (!req.fetch && r.count("db")) return InvalidArgument("--db goes with --fetch");
  if (r.count("compare")) {
    req.compare = r["compare"].as<std::vector<std::string>>();
    if (req.compare.size() != 2 || req.compare[0].empty() || req.compare[1].empty()) {
      return InvalidArgument("--compare takes two runs: RUN_A,RUN_B");
    }
    if (!req.run_id.empty() || req.samples || !req.annotate.empty() || req.fetch) {
      return InvalidArgument(
          "--compare names its own runs; it goes without --run, --samples, --annotate "
          "and --fetch");
    }
  }
  const std::string f = r["format"].as<std::string>();
  req.perf_stats = f == "perf-stats";
  if (!req.perf_stats && !ParseTableFormat(f, &req.format)) {
    return InvalidArgument("unknown format '" + f + "' (table, markdown, csv, json or perf-stats)");
  }
  if (req.perf_stats && !req.compare.empty()) {
    return InvalidArgument("--compare has no perf-stats format");
  }
  return req;
}

Status ExecuteReport(const ReportRequest& req) {
  KT_ASSIGN_OR_RETURN(const std::string out, RenderReport(req));
  if (!req.output.empty()) return WriteUserFile(req.output, out);
  std::cout << out;
  return Status::Ok();
}

int ReportMain(const Args& args) {
  return CommandMain("report", ReportCliOptions, ParseReportArgs, ExecuteReport, args);
}

}  // namespace ktune::host
