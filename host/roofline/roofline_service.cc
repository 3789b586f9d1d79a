#include "host/roofline/roofline_service.h"

#include <sys/utsname.h>

#include <chrono>

#include "common/fs.h"
#include "common/strings.h"
#include "host/measure/run_service.h"
#include "host/tune/tune_run.h"

namespace ktune::host {

namespace {

std::string HostArch() {
  struct utsname u {};
  return ::uname(&u) == 0 ? std::string(u.machine) : std::string();
}

// Builds one microkernel spec of kernels/roofline into the request's root.
Status Build(const RooflineRequest& r, const std::string& spec, std::vector<std::string> shape,
             const std::string& shapes_file) {
  TuneOptions t;
  t.kernel = r.kernels_dir + "/roofline/" + spec + ".kspec";
  t.root = r.root;
  t.toolchain = r.toolchain;
  t.shape = std::move(shape);
  t.shapes_file = shapes_file;
  t.kernels_dir = r.kernels_dir;
  t.toolchains_dir = r.toolchains_dir;
  return RunTune(t).WithContext("khost roofline: building " + spec);
}

struct Measured {
  RunReport report;
  std::string path, board;
  std::optional<std::string> caches;  // the board's, from the run's system check
};

// Measures one built microkernel on the agent.
Result<Measured> Measure(const RooflineRequest& r, const std::string& kernel) {
  KT_ASSIGN_OR_RETURN(const MeasuredKernel m,
                      MeasureKernel({.root = r.root,
                                     .kernel = kernel,
                                     .agents = {r.agent},
                                     .token_file = r.token_file,
                                     .run = {.command = "khost roofline", .measure = r.measure}}));
  if (m.got.run.rows.empty()) return NotFound("khost roofline: " + kernel + " measured nothing");
  const auto& meta = m.got.run.meta;
  return Measured{BuildRunReport(m.got.run), m.got.run.path, m.got.run.rows.front().board,
                  meta && meta->system ? meta->system->caches : std::nullopt};
}

}  // namespace

Result<RooflineResult> MeasureRoofline(const RooflineRequest& r) {
  RooflineResult out;
  out.threads = r.threads;
  KT_ASSIGN_OR_RETURN(const Toolchain toolchain, LoadToolchain(r.toolchain, r.toolchains_dir));
  out.widths = WidthsOf(toolchain, HostArch());
  if (r.max_bytes) {  // a --max-size that leaves no set is refused before anything runs
    KT_RETURN_IF_ERROR(
        BandwidthShapes(r.min_bytes, r.max_bytes, r.bytes_per_call, r.threads).status());
  }
  KT_RETURN_IF_ERROR(Build(
      r, "roofline_flops",
      {"ITERS=" + std::to_string(r.flops_iterations) +
       " MINW=" + std::to_string(out.widths.min_bytes) +
       " MAXW=" + std::to_string(out.widths.max_bytes) + " THREADS=" + std::to_string(r.threads)},
      ""));
  KT_ASSIGN_OR_RETURN(const Measured flops, Measure(r, "roofline_flops"));
  // The sweep reaches past the last cache of the board that measured the flops.
  out.sweep = SweepLimitOf(r.max_bytes, flops.caches);
  KT_ASSIGN_OR_RETURN(
      const std::vector<std::string> sets,
      BandwidthShapes(r.min_bytes, out.sweep.max_bytes, r.bytes_per_call, r.threads));
  const std::string shapes = r.root + "/roofline_bandwidth.shapes";
  KT_RETURN_IF_ERROR(WriteFileAtomic(shapes, Join(sets, "\n") + "\n"));
  // One shape set (a spec without tensors takes each set as a shape of its own).
  KT_RETURN_IF_ERROR(Build(r, "roofline_bandwidth", {}, shapes));
  KT_ASSIGN_OR_RETURN(const Measured bandwidth, Measure(r, "roofline_bandwidth"));
  out.flops_run = flops.path;
  out.bandwidth_run = bandwidth.path;
  out.board = flops.board;
  KT_ASSIGN_OR_RETURN(out.measured, CeilingsOf(flops.report, bandwidth.report));
  if (r.db) {
    const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    const RunIds runs{flops.report.run_id, bandwidth.report.run_id};
    KT_RETURN_IF_ERROR(
        r.db->RecordCeilings(out.board, r.threads, CeilingRowsOf(out.measured, runs, now)));
  }
  return out;
}

Result<std::optional<Ceilings>> StoredCeilings(TuningDb& db, const std::string& board) {
  KT_ASSIGN_OR_RETURN(const std::vector<CeilingRow> rows, db.CeilingsOf(board, 1));
  if (rows.empty()) return std::optional<Ceilings>();
  return std::optional<Ceilings>(CeilingsFromRows(rows));
}

}  // namespace ktune::host
