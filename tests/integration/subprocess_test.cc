// khost's tool runner (host/util/subprocess.h) on real processes: a tool whose output goes to a
// file (the ssh master, which outlives khost; tune's checks) inherits none of khost's fds, even
// with threads spawning at once; a tool's stdin is opened read-only.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include "common/strings.h"
#include "host/util/subprocess.h"
#include "tests/integration/harness.h"

namespace ktune::host {
namespace {

TEST_CASE("a tool writing to a file inherits no fd but its stdio") {
  test::TempDir tmp;
  int leaky[2];
  REQUIRE(::pipe(leaky) == 0);  // not close-on-exec: a tool must not get it all the same
  ToolOptions options;
  options.stdout_path = tmp.path() + "/fds.txt";
  options.stderr_too = true;
  auto run = RunTool({"sh", "-c", "ls /proc/$$/fd"}, options);
  ::close(leaky[0]);
  ::close(leaky[1]);
  REQUIRE(run.ok());
  CHECK(run->exit_code == 0);
  CHECK(SplitWords(run->output) == std::vector<std::string>{"0", "1", "2"});
}

TEST_CASE("a tool's stdin is read-only: a running executable serves; a missing file is an error") {
  // This test binary is running: opening it for writing fails (ETXTBSY), as Boost's own did.
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  ToolOptions options;
  options.stdin_path = self;
  auto run = RunTool({"wc", "-c"}, options);
  REQUIRE_MESSAGE(run.ok(), run.status().message());
  CHECK(Trim(run->output) == std::to_string(std::filesystem::file_size(self)));
  test::TempDir tmp;
  options.stdin_path = tmp.path() + "/missing";
  auto missing = RunTool({"wc", "-c"}, options);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message() ==
        "cannot read " + tmp.path() + "/missing for wc: No such file or directory");
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/missing"));  // not created
}

TEST_CASE("tools writing to files start from many threads at once") {
  test::TempDir tmp;
  std::atomic<int> started{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        ToolOptions options;
        options.stdout_path = tmp.path() + "/" + std::to_string(t) + ".txt";
        options.stderr_too = true;
        auto run = RunTool({"true"}, options);
        (run.ok() && run->exit_code == 0 ? started : failed)++;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(started == 60);
  CHECK(failed == 0);
}

}  // namespace
}  // namespace ktune::host
