// agentd as an ordinary user, as it runs on most boards: it must store bundles, run them, and
// count what perf_event_paranoid allows, saying so. When the tests run as root, the agent is
// started as nobody (util-linux's setpriv); otherwise every test already runs unprivileged.
// Also common/fs.h RemoveTree as such a user, whom a read-only directory stops, as it does not
// stop root.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "common/fs.h"
#include "common/results.h"
#include "common/strings.h"
#include "tests/integration/harness.h"

namespace ktune {
namespace {
namespace fs = std::filesystem;

TEST_CASE("an unprivileged agent stores, runs and counts what it may") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: the tests run unprivileged already, agents included");
    return;
  }
  test::TempDir tmp;
  fs::permissions(tmp.path(), fs::perms(0755));
  const std::string store = tmp.path() + "/store";
  fs::create_directories(store);
  REQUIRE(::chown(store.c_str(), 65534, 65534) == 0);
  const std::string root = tmp.path() + "/work";
  test::MakeKernelDir(root, "k",
                      {{"ok.elf", {{"B", 1}}, {"k/run/test_data/matrix_4x4_1.txt", "2"}}});
  test::AgentProcess agent(store, {},
                           {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  auto r =
      test::RunKhost({"run", "k", "--root", root, "--agent", agent.address().ToString(), "--reps",
                      "1", "--warmup", "0", "--events", "task-clock,page-faults,page-faults:k"},
                     tmp.path());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const int paranoid =
      ParseInt(Trim(ReadFile("/proc/sys/kernel/perf_event_paranoid").value())).value();
  std::string results;
  for (const auto& e : fs::directory_iterator(root + "/k/run/results")) {
    if (e.path().extension() == ".csv") results = e.path().string();
  }
  auto parsed = ParseResultsCsv(ReadFile(results).value());
  REQUIRE(parsed.ok());
  REQUIRE(parsed->rows.size() == 1);
  const RepetitionRow& row = parsed->rows[0];
  CHECK(row.valid);
  CHECK(row.Find("task-clock")->status == ValueStatus::kOk);
  CHECK(row.Find("page-faults")->status == ValueStatus::kOk);
  if (paranoid >= 2) {
    CHECK(r.err.find("events count user space only") != std::string::npos);
    // Kernel-only counting is not allowed: reported, never a silent zero.
    CHECK(row.Find("page-faults:k")->status == ValueStatus::kNotSupported);
  }
  // The agent's tree is read-only, even to its owner.
  for (const auto& e : fs::recursive_directory_iterator(store + "/bundles")) {
    if (e.path().filename() == "tree") {
      CHECK((fs::status(e.path()).permissions() & fs::perms::owner_write) == fs::perms::none);
    }
  }
}

TEST_CASE("RemoveTree removes read-only directories for a user whom they stop") {
  // Root removes from a read-only directory anyway, so the first removal fails, and the
  // permissions are restored, only for another user: the tree is nobody's, removed as nobody.
  if (::geteuid() != 0) {
    MESSAGE("skipped: tests/unit/common/fs_test.cc removes such a tree as this user");
    return;
  }
  test::TempDir tmp;
  fs::permissions(tmp.path(), fs::perms(0711));
  const std::string parent = tmp.path() + "/nobodys";
  const std::string top = parent + "/tree";
  fs::create_directories(top + "/a/b");
  REQUIRE(WriteFileAtomic(top + "/a/b/f", "x", 0444).ok());
  const uid_t nobody = 65534;
  for (const std::string& p : {top + "/a/b/f", top + "/a/b", top + "/a", top, parent}) {
    REQUIRE(::chown(p.c_str(), nobody, nobody) == 0);
  }
  for (const std::string& d : {top + "/a/b", top + "/a"}) fs::permissions(d, fs::perms(0555));
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (::setgid(nobody) != 0 || ::setuid(nobody) != 0) ::_exit(2);
    RemoveTree(top);
    ::_exit(fs::exists(top) ? 1 : 0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK_FALSE(fs::exists(top));
}

}  // namespace
}  // namespace ktune
