// khost roofline: the board's ceilings, measured (docs/ROOFLINE.md). Builds the microkernels of
// kernels/roofline for the toolchain, measures them on the agent as two ordinary runs, and keeps
// the peak GFLOP/s per precision and width and the GB/s of each memory level in the tuning
// database, where khost analyze places every variant of a run under them.
#include "host/cli/cmd_roofline.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/cli/measure_options.h"
#include "host/report/roofline.h"
#include "host/report/table.h"
#include "host/roofline/roofline_service.h"
#include "host/util/format.h"
#include "host/util/khost_files.h"

namespace ktune::host {

cxxopts::Options RooflineCliOptions() {
  cxxopts::Options o("khost roofline",
                     "Measure the board's roofline ceilings: peak GFLOP/s per precision and "
                     "vector width, GB/s per memory level.");
  AddMeasureOptions(o, /*order_seed=*/true);
  o.add_options()("toolchain",
                  "toolchain profile the microkernels are built with (as khost tune takes it)",
                  cxxopts::value<std::string>()->default_value("rvv-clang19"))(
      "max-size",
      "the bandwidth sweep's largest working set (4 KiB up, doubling); by default 4x the "
      "board's last cache, as its system check lists them (64MiB when it lists none)",
      cxxopts::value<std::string>())("bytes-per-call",
                                     "what each bandwidth call moves (more: steadier, slower)",
                                     cxxopts::value<std::string>()->default_value("256MiB"))(
      "iterations", "each multiply-add chain's iterations per call",
      cxxopts::value<std::string>()->default_value("20000000"))(
      "threads",
      "threads that run each microkernel at once, each pinned to a CPU of its own (the board's "
      "CPU count, which khost agent status shows: the all-core ceilings)",
      cxxopts::value<std::string>()->default_value("1"))(
      "kernels", "where the microkernels are (kernels/roofline)",
      cxxopts::value<std::string>()->default_value(ShippedDir() + "/kernels"))(
      "toolchains", "where toolchain names are looked up",
      cxxopts::value<std::string>()->default_value(ShippedDir() + "/toolchains"))(
      "format", "table or json", cxxopts::value<std::string>()->default_value("table"));
  AddRootOption(o);
  AddAgentOption(o);
  AddDbOption(o);
  return o;
}

Result<uint64_t> ParseByteSize(const std::string& text, const std::string& option) {
  const std::string bad = "--" + option + " '" + text +
                          "': a size in bytes, 4096 up to 1TiB, with an optional unit KiB, MiB "
                          "or GiB";
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  if (digits == 0 || digits > 13) return InvalidArgument(bad);
  const std::string unit = text.substr(digits);
  uint64_t scale = 1;
  if (unit == "KiB") {
    scale = uint64_t{1} << 10;
  } else if (unit == "MiB") {
    scale = uint64_t{1} << 20;
  } else if (unit == "GiB") {
    scale = uint64_t{1} << 30;
  } else if (!unit.empty()) {
    return InvalidArgument(bad);
  }
  const uint64_t value = std::stoull(text.substr(0, digits)) * scale;
  if (value < 4096 || value > (uint64_t{1} << 40)) return InvalidArgument(bad);
  return value;
}

Result<RooflineArgs> ParseRooflineArgs(const Args& args) {
  cxxopts::Options o = RooflineCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args));
  RooflineArgs a;
  KT_RETURN_IF_ERROR(ParseMeasureOptions(r, &a.measure, /*order_seed=*/true));
  a.agent = r["agent"].as<std::string>();
  a.token_file = r["token-file"].as<std::string>();
  a.toolchain = r["toolchain"].as<std::string>();
  a.root = r["root"].as<std::string>();
  a.db = r["db"].as<std::string>();
  a.kernels_dir = r["kernels"].as<std::string>();
  a.toolchains_dir = r["toolchains"].as<std::string>();
  if (r.count("max-size")) {
    KT_ASSIGN_OR_RETURN(a.max_bytes, ParseByteSize(r["max-size"].as<std::string>(), "max-size"));
  }
  KT_ASSIGN_OR_RETURN(a.bytes_per_call,
                      ParseByteSize(r["bytes-per-call"].as<std::string>(), "bytes-per-call"));
  KT_ASSIGN_OR_RETURN(const int64_t iterations, IntegerOption(r, "iterations", 1, int64_t{1} << 40,
                                                              "a number of iterations"));
  a.flops_iterations = static_cast<uint64_t>(iterations);
  KT_ASSIGN_OR_RETURN(const int64_t threads,
                      IntegerOption(r, "threads", 1, 4096, "a number of threads"));
  a.threads = static_cast<int>(threads);
  if (a.threads > 1 && a.measure.cpu >= 0) {
    return InvalidArgument("--threads " + std::to_string(a.threads) + " with --cpu " +
                           std::to_string(a.measure.cpu) +
                           ": the threads are pinned to CPUs of their own; leave --cpu out");
  }
  const std::string format = r["format"].as<std::string>();
  if (format != "table" && format != "json") {
    return InvalidArgument("--format '" + format + "': table or json");
  }
  a.json = format == "json";
  return a;
}

namespace {

Table CeilingsTable(const RooflineResult& res) {
  Table t;
  t.title =
      "roofline of " + res.board + " (" + res.widths.what + ", " + ThreadsLabel(res.threads) + ")";
  t.columns = {"ceiling", "kind", "value", "unit", "capacity"};
  t.text_columns = 2;
  for (const ComputeCeiling& c : res.measured.ceilings.compute) {
    t.AddRow({c.name, "compute", FormatNumber(c.gflops), "GFLOP/s", "-"});
  }
  const auto level = [&](const std::string& name, const MemoryCeiling& m) {
    t.AddRow({name, "memory", FormatNumber(m.gbytes_s), "GB/s",
              m.size_bytes ? FormatMiB(m.size_bytes) : std::string("-")});
  };
  for (const MemoryCeiling& m : res.measured.ceilings.memory) level(m.level, m);
  for (size_t s = 0; s < res.measured.streams.size(); ++s) {
    for (const MemoryCeiling& m : res.measured.stream_levels[s]) {
      level(res.measured.streams[s].stream + " " + m.level, m);
    }
  }
  t.notes.push_back("memory: the read stream's levels (a kernel's loads); each stream's below");
  t.notes.push_back(
      "a level's bandwidth: the highest over its working sets; DRAM's over those of 4x the last "
      "cache or more");
  t.notes.push_back("working sets: 4 KiB to " + FormatMiB(res.sweep.max_bytes) + " (" +
                    res.sweep.from + ")");
  t.notes.push_back("runs: " + res.flops_run + ", " + res.bandwidth_run);
  if (const std::string e = EmulatorNote(res.board); !e.empty()) t.notes.push_back("note: " + e);
  return t;
}

// The ceilings as numbers: GFLOP/s, GB/s and bytes.
std::string CeilingsJson(const RooflineResult& res) {
  nlohmann::ordered_json j = {{"schema", "ktune-roofline"},
                              {"version", 1},
                              {"board", res.board},
                              {"vectors", res.widths.what},
                              {"threads", res.threads}};
  j["compute"] = nlohmann::ordered_json::array();
  for (const ComputeCeiling& c : res.measured.ceilings.compute) {
    j["compute"].push_back({{"name", c.name}, {"precision", c.precision}, {"gflops", c.gflops}});
  }
  const auto levels = [](const std::vector<MemoryCeiling>& ls) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const MemoryCeiling& m : ls) {
      out.push_back({{"level", m.level},
                     {"size_bytes", m.size_bytes},
                     {"from_bytes", m.from_bytes},
                     {"gbytes_per_s", m.gbytes_s}});
    }
    return out;
  };
  j["memory"] = levels(res.measured.ceilings.memory);
  j["streams"] = nlohmann::ordered_json::array();
  for (size_t s = 0; s < res.measured.streams.size(); ++s) {
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const BandwidthPoint& p : res.measured.streams[s].points) {
      points.push_back({{"bytes", p.bytes}, {"gbytes_per_s", p.gbytes_s}});
    }
    j["streams"].push_back({{"stream", res.measured.streams[s].stream},
                            {"levels", levels(res.measured.stream_levels[s])},
                            {"points", points}});
  }
  j["sweep"] = {{"max_bytes", res.sweep.max_bytes}, {"from", res.sweep.from}};
  j["runs"] = {res.flops_run, res.bandwidth_run};
  const std::string emulated = EmulatorNote(res.board);
  j["note"] = emulated.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(emulated);
  return j.dump(2) + "\n";
}

Status ExecuteRoofline(const RooflineArgs& a) {
  KT_ASSIGN_OR_RETURN(std::unique_ptr<TuningDb> db, OpenDbFor(a.db, /*create=*/true));
  RooflineRequest req;
  req.agent = a.agent;
  req.token_file = a.token_file;
  req.toolchain = a.toolchain;
  req.root = a.root;
  req.max_bytes = a.max_bytes;
  req.bytes_per_call = a.bytes_per_call;
  req.flops_iterations = a.flops_iterations;
  req.threads = a.threads;
  req.measure = a.measure;
  req.kernels_dir = a.kernels_dir;
  req.toolchains_dir = a.toolchains_dir;
  req.db = db.get();
  // What building and measuring print goes to stderr: stdout holds the ceilings alone.
  std::streambuf* const stdout_buffer = std::cout.rdbuf(std::cerr.rdbuf());
  Result<RooflineResult> measured = MeasureRoofline(req);
  std::cout.rdbuf(stdout_buffer);
  KT_ASSIGN_OR_RETURN(const RooflineResult res, std::move(measured));
  std::cout << (a.json ? CeilingsJson(res) : Render(CeilingsTable(res), TableFormat::kConsole));
  std::cerr << "khost roofline: kept in " << db->location() << " for " << res.board
            << "; khost analyze places each run's variants under them\n";
  return Status::Ok();
}

}  // namespace

int RooflineMain(const Args& args) {
  return CommandMain("roofline", RooflineCliOptions, ParseRooflineArgs, ExecuteRoofline, args);
}

}  // namespace ktune::host
