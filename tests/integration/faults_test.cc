// Faults an agent meets on a board: kernels that crash, hang, fork without end, flood their
// output, eat memory or write huge files; a full disk; links cut mid-push and mid-run; kernels
// run as an unprivileged user in a directory of their own. Each case checks that the agent keeps
// serving and that no measured row is lost. Real agentd and khost processes throughout.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "common/fs.h"
#include "common/manifest.h"
#include "common/results.h"
#include "common/strings.h"
#include "host/cli/cmd_run.h"
#include "host/remote/agent_client.h"
#include "host/results/kernel_dir.h"
#include "protocol/convert.h"
#include "tests/integration/harness.h"

namespace ktune::host {
namespace {
namespace fs = std::filesystem;

using test::OnlyResults;
using test::RowsOf;

// Processes whose command name is `comm` (a kernel's file name, cut to 15 characters).
size_t ProcessesNamed(const std::string& comm) {
  size_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    auto text = ReadFile(e.path().string() + "/comm");
    auto stat = ReadFile(e.path().string() + "/stat");  // "pid (comm) STATE ..."
    if (!text.ok() || !stat.ok() || Trim(*text) != comm.substr(0, 15)) continue;
    const size_t paren = stat->rfind(')');
    if (paren != std::string::npos && stat->size() > paren + 2 && (*stat)[paren + 2] != 'Z') ++n;
  }
  return n;
}

// Tasks (threads) whose real user is this process's: what RLIMIT_NPROC counts, machine-wide.
size_t TasksOfUser() {
  size_t n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    auto status = ReadFile(e.path().string() + "/status");
    if (!status.ok()) continue;
    uint64_t uid = ~uint64_t{0}, threads = 0;
    for (std::string_view line : Split(*status, '\n')) {
      const auto number = [&](size_t at) { return std::strtoull(line.data() + at, nullptr, 10); };
      if (line.starts_with("Uid:")) uid = number(4);
      if (line.starts_with("Threads:")) threads = number(8);
    }
    if (uid == getuid()) n += threads;
  }
  return n;
}

TEST_CASE("misbehaving kernels: each row is kept with its outcome, and the agent keeps serving") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  // RLIMIT_NPROC counts every task of the user machine-wide (ctest runs this file alone), so the
  // limit is what this user runs now and 64 more: room for the kernels, not for a fork bomb.
  test::AgentProcess agent(tmp.path() + "/store",
                           {"--limit-as-mb", "256", "--limit-nproc",
                            std::to_string(TasksOfUser() + 64), "--limit-fsize-mb", "8"});
  test::MakeKernelDir(root, "k",
                      {{"ok.elf", {{"B", 0}}, {"k/run/test_data/matrix_4x4_1.txt", "2"}},
                       {"segv.elf", {{"B", 1}}, {}},
                       {"hang.elf", {{"B", 2}}, {}},
                       {"flood.elf", {{"B", 3}}, {"64"}},
                       {"probe.elf", {{"B", 4}}, {"forkbomb"}},
                       {"probe.elf", {{"B", 5}}, {"hog"}},
                       {"probe.elf", {{"B", 6}}, {"bigfile"}}});
  auto r = test::RunKhost({"run", "k", "--root", root, "--reps", "2", "--warmup", "0", "--timeout",
                           "2", "--agent", agent.address().ToString()},
                          tmp.path());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto rows = RowsOf(OnlyResults(root + "/k/run"));
  REQUIRE(rows.size() == 14);
  std::map<uint32_t, std::set<std::string>> outcomes;
  for (const auto& row : rows) outcomes[row.variant_index].insert(row.outcome.ToString());
  // Each variant's outcomes, "a b" (a set's text, so that a failed check shows them).
  auto of = [&](uint32_t v) { return Join({outcomes[v].begin(), outcomes[v].end()}, " "); };
  CHECK(of(0) == "exit:0");
  CHECK(of(1) == "signal:SIGSEGV");
  CHECK(of(2) == "timeout");
  CHECK(of(3) == "exit:0");  // 64 MiB of output, kept bounded
  CHECK(of(4) == "exit:1");  // fork failed at RLIMIT_NPROC
  CHECK(of(5) == "exit:1");  // malloc failed at RLIMIT_AS
  CHECK(of(6) == "signal:SIGXFSZ");
  CHECK(r.err.find("forkbomb: fork failed after") != std::string::npos);
  CHECK(r.err.find("hog: allocation failed after") != std::string::npos);
  // The fork bomb's processes went with its process group.
  CHECK(test::WaitFor([] { return ProcessesNamed("4_probe.elf") == 0; }, 10));
  // Still serving: the same sweep's first variant again.
  auto again = test::RunKhost({"run", "k", "--root", root, "--reps", "1", "--warmup", "0",
                               "--timeout", "2", "--agent", agent.address().ToString()},
                              tmp.path());
  CHECK_MESSAGE(again.exit_code == 0, again.err);
}

// The output of a variant that fails, through the client library.
std::string OutputOf(const HostPort& agent, const std::string& root, const std::string& kernel) {
  auto dir = LoadKernelDir(root, kernel);
  REQUIRE(dir.ok());
  auto manifest = BuildManifest(*dir);
  REQUIRE(manifest.ok());
  auto conn = AgentConnection::Connect(agent);
  REQUIRE(conn.ok());
  auto pushed = PushBundle(**conn, *manifest, root);
  REQUIRE(pushed.ok());
  auto opts = ParseRunArgs({kernel, "--reps", "1", "--warmup", "0", "--events", "task-clock"});
  REQUIRE(opts.ok());
  std::string output;
  Status s = RunOnAgent(**conn, MakeRunRequest(*opts, *dir, pushed->bundle_id, "identity-run"),
                        [&](const wire::RepetitionResult& r) {
                          output = r.output_excerpt();
                          return Status::Ok();
                        });
  REQUIRE_MESSAGE(s.ok(), s.message());
  return output;
}

TEST_CASE("agentd as root runs kernels as nobody in a working directory of their own") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: agentd drops kernels to --run-as only when it runs as root");
    return;
  }
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work", store = tmp.path() + "/store";
  test::AgentProcess agent(store);
  test::MakeKernelDir(root, "k",
                      {{"probe.elf", {{"B", 0}}, {"identity", "k/run/bin/0_probe.elf"}}});
  const std::string out = OutputOf(agent.address(), root, "k");
  CAPTURE(out);
  CHECK(out.find("uid 65534 gid 65534 groups 0") != std::string::npos);
  CHECK(out.find("nproc 1024 fsize 1073741824") != std::string::npos);
  CHECK(out.find("write cwd: yes") != std::string::npos);
  CHECK(out.find("write tree: Permission denied") != std::string::npos);
  CHECK(out.find("tree owner: 0") != std::string::npos);
  // The working directory (and what the kernel wrote there) is gone with the run.
  CHECK_FALSE(fs::exists(store + "/work/identity-run"));
  CHECK(fs::is_empty(store + "/work"));

  // A store the user cannot reach is refused at start, naming the directory.
  test::TempDir closed;
  ::chmod(closed.path().c_str(), 0700);
  auto r = test::RunProgram(test::BinDir() + "/agentd",
                            {"--listen", "127.0.0.1:0", "--store", closed.path() + "/store"},
                            tmp.path());
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("cannot reach " + closed.path() + " (mode 0700)") != std::string::npos);
}

// Files of random (incompressible) bytes, so that pushes carry what they weigh.
void AddRandomFiles(const std::string& dir, int count, size_t bytes) {
  std::mt19937_64 rng(std::hash<std::string>()(dir));  // each directory its own bytes
  for (int i = 0; i < count; ++i) {
    std::string data(bytes, '\0');
    for (char& c : data) c = static_cast<char>(rng());
    REQUIRE(WriteFileAtomic(dir + "/blob" + std::to_string(i) + ".bin", data).ok());
  }
}

TEST_CASE("a push cut midway resumes blob by blob; a partial blob is never visible") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work", store = tmp.path() + "/store";
  test::AgentProcess agent(store);
  test::MakeKernelDir(root, "k", {{"ok.elf", {{"B", 0}}, {}}});
  AddRandomFiles(root + "/k/run/test_data", 6, 1 << 20);
  auto dir = LoadKernelDir(root, "k");
  REQUIRE(dir.ok());
  auto manifest = BuildManifest(*dir);
  REQUIRE(manifest.ok());
  {
    test::FaultProxy proxy(agent.address(), {std::nullopt, uint64_t{3} << 20});
    auto conn = AgentConnection::Connect(proxy.address());
    REQUIRE(conn.ok());
    auto cut = PushBundle(**conn, *manifest, root);
    REQUIRE_FALSE(cut.ok());
  }
  // Only whole, verified blobs are in the store; the one cut short is not.
  size_t stored = 0;
  for (const FileEntry& f : manifest->files) {
    const std::string path = store + "/blobs/" + f.hash.substr(0, 2) + "/" + f.hash;
    if (!fs::exists(path)) continue;
    ++stored;
    CHECK(fs::file_size(path) == f.size_bytes);
  }
  CHECK(stored >= 2);
  CHECK(stored < manifest->files.size());
  auto conn = AgentConnection::Connect(agent.address());
  REQUIRE(conn.ok());
  auto resumed = PushBundle(**conn, *manifest, root);
  REQUIRE_MESSAGE(resumed.ok(), resumed.status().message());
  CHECK(resumed->blobs_sent == manifest->files.size() - stored);
}

TEST_CASE("a run cut midway goes on on the agent; --resume fetches every row") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work";
  test::AgentProcess agent(tmp.path() + "/store");
  std::vector<test::TestVariant> variants;
  for (int i = 0; i < 4; ++i) variants.push_back({"spin.elf", {{"B", i}}, {"40"}});
  test::MakeKernelDir(root, "k", variants);
  // Push first (its bytes are not what is cut here), then run through a proxy that cuts the
  // link a few rows in.
  REQUIRE(test::RunKhost({"push", "k", "--root", root, "--agent", agent.address().ToString()},
                         tmp.path())
              .exit_code == 0);
  {
    test::FaultProxy proxy(agent.address(), {std::nullopt, uint64_t{6000}});
    auto cut = test::RunKhost({"run", "k", "--root", root, "--reps", "3", "--warmup", "0",
                               "--agent", proxy.address().ToString()},
                              tmp.path());
    CHECK(cut.exit_code != 0);
    CHECK(cut.err.find("rows saved in") != std::string::npos);
  }
  auto resumed = test::RunKhost(
      {"run", "k", "--root", root, "--resume", "--agent", agent.address().ToString()}, tmp.path());
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  const auto rows = RowsOf(OnlyResults(root + "/k/run"));
  std::set<RowKey> keys;
  for (const auto& row : rows) keys.insert(KeyOf(row));
  CHECK(rows.size() == 12);
  CHECK(keys.size() == 12);
}

// A tmpfs of `size_mib` at `dir` (root only), unmounted on destruction.
class SmallDisk {
 public:
  SmallDisk(const std::string& dir, int size_mib, const std::string& scratch) : dir_(dir) {
    fs::create_directories(dir);
    mounted_ =
        test::RunProgram(
            "mount", {"-t", "tmpfs", "-o", "size=" + std::to_string(size_mib) + "m", "tmpfs", dir},
            scratch)
            .exit_code == 0;
    if (mounted_) ::chmod(dir.c_str(), 0755);
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

TEST_CASE("a full disk fails the push or the run with a clear error; nothing stored is lost") {
  test::TempDir tmp;
  SmallDisk disk(tmp.path() + "/disk", 16, tmp.path());
  if (!disk.mounted()) {
    MESSAGE("skipped: mounting a small tmpfs needs root");
    return;
  }
  const std::string root = tmp.path() + "/work", store = tmp.path() + "/disk/store";
  test::AgentProcess agent(store);
  const std::string addr = agent.address().ToString();
  std::vector<test::TestVariant> variants;
  for (int i = 0; i < 3; ++i) variants.push_back({"spin.elf", {{"B", i}}, {"5"}});
  test::MakeKernelDir(root, "k", variants);
  test::MakeKernelDir(root, "big", {{"ok.elf", {{"B", 0}}, {}}});
  AddRandomFiles(root + "/big/run/test_data", 3, 8 << 20);

  auto first =
      test::RunKhost({"run", "k", "--root", root, "--reps", "2", "--agent", addr}, tmp.path());
  REQUIRE_MESSAGE(first.exit_code == 0, first.err);
  // A bundle bigger than the disk: refused midway, its partial blob removed.
  auto big = test::RunKhost({"push", "big", "--root", root, "--agent", addr}, tmp.path());
  CHECK(big.exit_code != 0);
  CHECK_MESSAGE(big.err.find("No space left on device") != std::string::npos, big.err);
  CHECK(big.ErrLines().size() == 1);
  // The refused blob's partial file went before the error did, and the agent wrote none of the
  // blobs behind it (that space would come back later, mid-test).
  size_t partial_files = 0;
  for (const auto& e : fs::recursive_directory_iterator(store + "/tmp")) {
    partial_files += e.is_regular_file();
  }
  CHECK(partial_files == 0);
  // With the disk full, a run fails with the reason; the agent keeps serving and the first
  // run's rows stay, on the host and in the agent's journal.
  const std::string first_results = OnlyResults(root + "/k/run");
  {
    std::ofstream fill(tmp.path() + "/disk/filler");
    std::string block(1 << 20, 'x');
    while (fill.write(block.data(), static_cast<std::streamsize>(block.size()))) {
    }
  }
  auto full = test::RunKhost(
      {"run", "k", "--root", root, "--reps", "2", "--agent", addr, "--fresh"}, tmp.path());
  CHECK(full.exit_code != 0);
  CHECK(full.err.find("No space left on device") != std::string::npos);
  fs::remove(tmp.path() + "/disk/filler");
  auto after =
      test::RunKhost({"run", "k", "--root", root, "--reps", "2", "--agent", addr}, tmp.path());
  CHECK_MESSAGE(after.exit_code == 0, after.err);
  CHECK(RowsOf(first_results).size() == 6);
  const std::string run_id = fs::path(first_results).stem().string();
  CHECK(RowsOf(store + "/runs/" + run_id + "/results.csv").size() == 6);
}

TEST_CASE("the store quota evicts the least recently used bundle no run holds") {
  test::TempDir tmp;
  const std::string root = tmp.path() + "/work", store = tmp.path() + "/store";
  test::AgentProcess agent(store, {"--store-quota-mb", "13", "--max-bundle-mb", "9"});
  const std::string addr = agent.address().ToString();
  for (const char* k : {"a", "b", "c", "huge"}) {
    test::MakeKernelDir(root, k, {{"ok.elf", {{"B", 0}}, {}}});
  }
  AddRandomFiles(root + "/a/run/test_data", 1, 2 << 20);
  AddRandomFiles(root + "/b/run/test_data", 2, 1 << 20);
  AddRandomFiles(root + "/c/run/test_data", 3, 1 << 20);
  AddRandomFiles(root + "/huge/run/test_data", 10, 1 << 20);
  auto push = [&](const char* k) {
    return test::RunKhost({"push", k, "--root", root, "--agent", addr}, tmp.path());
  };
  auto bundles = [&] {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(store + "/bundles")) n += e.is_directory();
    return n;
  };
  auto too_big = push("huge");
  CHECK(too_big.exit_code != 0);
  CHECK(too_big.err.find("agentd --max-bundle-mb") != std::string::npos);
  CHECK(bundles() == 0);
  REQUIRE(push("a").exit_code == 0);
  REQUIRE(push("b").exit_code == 0);
  // a, b: a bundle's bytes count twice (its blobs and its tree); c needs room: a goes, b stays.
  auto c = push("c");
  REQUIRE_MESSAGE(c.exit_code == 0, c.err);
  CHECK(bundles() == 2);
  auto run_a =
      test::RunKhost({"run", "a", "--root", root, "--reps", "1", "--agent", addr}, tmp.path());
  CHECK_MESSAGE(run_a.exit_code == 0, run_a.err);  // pushed again: only what was evicted
}

}  // namespace
}  // namespace ktune::host
