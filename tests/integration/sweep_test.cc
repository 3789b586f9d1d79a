// Sweeps over several agents (khost run --agents): real agentd processes on loopback, real
// khost, spin.elf variants. One agent reached through a proxy that cuts its link stands for a
// board that drops off the network; agentd --fake-cpuinfo (a FAKE CPU identity read from a
// file) stands for a board of another kind, which this machine cannot be.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <set>

#include "common/cpu.h"
#include "common/fs.h"
#include "common/hash.h"
#include "host/results/results_dir.h"
#include "tests/integration/harness.h"

namespace ktune::host {
namespace {
namespace fs = std::filesystem;

// Run ids of the agent's runs (its store's runs/ directories).
std::set<std::string> AgentRuns(const std::string& store) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(store + "/runs", ec)) {
    out.insert(e.path().filename().string());
  }
  return out;
}

// Rows per variant index.
std::map<uint32_t, size_t> PerVariant(const std::vector<RepetitionRow>& rows) {
  std::map<uint32_t, size_t> n;
  for (const RepetitionRow& r : rows) ++n[r.variant_index];
  return n;
}

struct Farm {
  test::TempDir tmp;
  std::string root = tmp.path() + "/work";
  std::string store_a = tmp.path() + "/store-a", store_b = tmp.path() + "/store-b";
  Farm(size_t variants, const std::string& spin_ms) {
    std::vector<test::TestVariant> v;
    for (size_t i = 0; i < variants; ++i) v.push_back({"spin.elf", {{"B", int(i)}}, {spin_ms}});
    test::MakeKernelDir(root, "k", v);
  }
  test::CommandResult Khost(const std::vector<std::string>& args) const {
    return test::RunKhost(args, tmp.path());
  }
  std::string Results() const { return test::OnlyResults(root + "/k/run"); }
};

TEST_CASE("a sweep over two agents: every variant measured whole, rows keyed by board and ELF") {
  Farm f(8, "2");
  test::AgentProcess a(f.store_a), b(f.store_b);
  auto r = f.Khost({"run", "k", "--root", f.root, "--reps", "2", "--warmup", "0", "--agents",
                    a.address().ToString() + "," + b.address().ToString()});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string results = f.Results();
  const std::string run_id = fs::path(results).stem().string();
  const auto rows = test::RowsOf(results);
  CHECK(rows.size() == 16);
  const auto per_variant = PerVariant(rows);
  CHECK(per_variant.size() == 8);
  for (const auto& [v, n] : per_variant) {
    CAPTURE(v);
    CHECK(n == 2);
  }
  // Each row: the board's fingerprint, the ELF's hash, its shard's run id.
  for (const RepetitionRow& row : rows) {
    CHECK_FALSE(row.board.empty());
    CHECK(row.board == rows[0].board);
    CHECK(row.elf_hash == HashBytes(ReadFile(f.root + "/" + row.elf).value()));
    CHECK(RunOfShard(row.run_id) == run_id);
    CHECK(row.run_id != run_id);
  }
  // 8 variants over 2 agents: 8 shards of one, and both agents took some.
  const auto runs_a = AgentRuns(f.store_a), runs_b = AgentRuns(f.store_b);
  CHECK_FALSE(runs_a.empty());
  CHECK_FALSE(runs_b.empty());
  CHECK(runs_a.size() + runs_b.size() == 8);
  auto meta = ReadRunMeta(RunMetaPath(results));
  REQUIRE(meta.ok());
  CHECK(meta->complete);
  REQUIRE(meta->shards.size() == 8);
  for (const auto& s : meta->shards) CHECK(s.state == "done");
  // The reports read it as one run.
  auto report = f.Khost({"report", "k", "--root", f.root});
  REQUIRE_MESSAGE(report.exit_code == 0, report.err);
  CHECK(report.out.find("run " + run_id) != std::string::npos);
  CHECK(fs::exists(f.root + "/k/run/perf_stats.csv"));

  // Its metadata edited to list a variant its request does not have: --resume refuses it in one
  // line, before asking either agent anything.
  RunMeta edited = *meta;
  edited.complete = false;
  edited.shards[3].variants = {99};
  edited.shards[3].state = "measuring";
  REQUIRE(WriteRunMeta(RunMetaPath(results), edited).ok());
  auto refused = f.Khost({"run", "k", "--root", f.root, "--resume"});
  CHECK(refused.exit_code != 0);
  CHECK(refused.err == "khost run: " + RunMetaPath(results) + ": shard " + edited.shards[3].id +
                           " lists variant 99, but the run's request has 8 variants; the files "
                           "are not one run's\n");
  CHECK(AgentRuns(f.store_a).size() + AgentRuns(f.store_b).size() == 8);
}

TEST_CASE("agents of another kind of CPU are refused, unless --allow-mixed") {
  const std::string fake = std::string(KTUNE_SOURCE_DIR) + "/test_data/cpuinfo/x86_64.txt";
  CpuId real, faked;
  ParseCpuInfo(ReadFile("/proc/cpuinfo").value(), &real);
  ParseCpuInfo(ReadFile(fake).value(), &faked);
  if (CpuFingerprint(real) == CpuFingerprint(faked)) {
    MESSAGE("skipped: this machine's CPU is the one the fake cpuinfo names");
    return;
  }
  Farm f(4, "2");
  test::AgentProcess a(f.store_a);
  test::AgentProcess other(f.store_b, {"--fake-cpuinfo", fake});
  const std::string agents = a.address().ToString() + "," + other.address().ToString();
  auto refused = f.Khost({"run", "k", "--root", f.root, "--reps", "1", "--agents", agents});
  CHECK(refused.exit_code == 1);
  REQUIRE(refused.ErrLines().size() == 1);
  CHECK(refused.ErrLines()[0].find("2 kinds of CPU") != std::string::npos);
  CHECK(refused.ErrLines()[0].find("--allow-mixed") != std::string::npos);
  CHECK_FALSE(fs::exists(f.root + "/k/run/results"));
  auto mixed =
      f.Khost({"run", "k", "--root", f.root, "--reps", "1", "--agents", agents, "--allow-mixed"});
  REQUIRE_MESSAGE(mixed.exit_code == 0, mixed.err);
  std::set<std::string> boards;
  for (const RepetitionRow& row : test::RowsOf(f.Results())) boards.insert(row.board);
  CHECK(boards.size() == 2);
  // Bad lists are refused before anything is asked.
  auto twice = f.Khost({"run", "k", "--root", f.root, "--agents",
                        a.address().ToString() + "," + a.address().ToString()});
  CHECK(twice.exit_code == 2);  // a usage error
  CHECK(twice.err.find("listed twice") != std::string::npos);
  auto unknown = f.Khost({"run", "k", "--root", f.root, "--agents", "nosuchboard,k2"});
  CHECK(unknown.exit_code == 1);
  REQUIRE(unknown.ErrLines().size() == 1);
  CHECK(unknown.ErrLines()[0].find("nosuchboard") != std::string::npos);
}

TEST_CASE(
    "a board that drops mid-sweep: its variants move to the others; --resume merges its "
    "journal when it is back") {
  Farm f(6, "40");
  test::AgentProcess a(f.store_a), b(f.store_b);
  // The bundle is on board a before its link goes through the proxy, which cuts it a few rows
  // into the sweep; agentd goes on measuring the shard it had.
  REQUIRE(f.Khost({"push", "k", "--root", f.root, "--agent", a.address().ToString()}).exit_code ==
          0);
  test::FaultProxy link(a.address(), {std::nullopt, uint64_t{6000}});
  REQUIRE(f.Khost({"agent", "add", "a", "--addr", link.address().ToString()}).exit_code == 0);
  REQUIRE(f.Khost({"agent", "add", "b", "--addr", b.address().ToString()}).exit_code == 0);
  auto r =
      f.Khost({"run", "k", "--root", f.root, "--reps", "3", "--warmup", "0", "--agents", "a,b"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("agent a dropped out") != std::string::npos);
  const std::string results = f.Results();
  const auto rows = test::RowsOf(results);
  for (const auto& [v, n] : PerVariant(rows)) {
    CAPTURE(v);
    CHECK(n >= 3);
  }
  CHECK(PerVariant(rows).size() == 6);
  auto meta = ReadRunMeta(RunMetaPath(results));
  REQUIRE(meta.ok());
  CHECK(meta->complete);
  std::string moved;
  for (const auto& s : meta->shards) {
    if (s.state == "moved") moved = s.id;
  }
  REQUIRE_FALSE(moved.empty());
  for (const auto& [v, n] : PerVariant(LoadRun("", results).value().rows)) {
    CAPTURE(v);
    CHECK(n == 3);  // a moved variant's rows cut short on board a are not counted
  }
  // Board a is back (directly now) once it has finished the shard it was measuring.
  REQUIRE(test::WaitFor([&] { return fs::exists(f.store_a + "/runs/" + moved + "/done"); }));
  REQUIRE(f.Khost({"agent", "add", "a", "--addr", a.address().ToString(), "--replace"}).exit_code ==
          0);
  size_t before = 0;
  for (const RepetitionRow& row : rows) before += row.run_id == moved;
  auto merged = f.Khost({"run", "k", "--root", f.root, "--resume"});
  REQUIRE_MESSAGE(merged.exit_code == 0, merged.err);
  CHECK(merged.err.find(" new rows, ") != std::string::npos);
  size_t after = 0;
  for (const RepetitionRow& row : test::RowsOf(results)) after += row.run_id == moved;
  CHECK(before < 3);
  CHECK(after == 3);  // the whole shard's journal, nothing twice
  // The run counts one measurement of each variant: the moved variants' rows from the merged
  // journal stay in the file, not in what readers count.
  const LoadedRun loaded = LoadRun("", results).value();
  CHECK(loaded.superseded_rows > 0);
  CHECK(loaded.superseded_rows <= after);
  for (const auto& [v, n] : PerVariant(loaded.rows)) {
    CAPTURE(v);
    CHECK(n == 3);
  }
  auto report = f.Khost({"report", "k", "--root", f.root});
  REQUIRE_MESSAGE(report.exit_code == 0, report.err);
  CHECK(report.err.find("did not count") != std::string::npos);
  auto meta_after = ReadRunMeta(RunMetaPath(results));
  REQUIRE(meta_after.ok());
  for (const auto& s : meta_after->shards) {
    if (s.id == moved) CHECK(s.state == "merged");
  }
  auto again = f.Khost({"run", "k", "--root", f.root, "--resume"});
  CHECK(again.exit_code == 1);
  CHECK(again.err.find("nothing to resume") != std::string::npos);
}

}  // namespace
}  // namespace ktune::host
