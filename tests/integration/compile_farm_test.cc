// khost tune through a compile farm: a real distccd (Debian's distcc) on a loopback port of the
// test's own, khost tune --launcher distcc sending it every compile, and what it made compared
// with a local build (code and data byte for byte; see Loaded); the build cache does not see the
// launcher.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "common/fs.h"
#include "host/util/subprocess.h"
#include "tests/contains.h"
#include "tests/integration/harness.h"

namespace ktune::host {
namespace {
namespace fs = std::filesystem;

using test::Contains;

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

// An ELF's bytes but its debug information and build id (objcopy, binutils): what distcc cannot
// keep equal. gcc -g gives a declaration written with a macro (size_t's __SIZE_TYPE__) another
// column when it compiles distcc's preprocessed text, and the build id hashes the whole file.
std::string Loaded(const std::string& name, const std::string& bytes, const std::string& dir) {
  const std::string in = dir + "/loaded.in", out = dir + "/loaded.out";
  REQUIRE(WriteFileAtomic(in, bytes).ok());
  auto stripped =
      RunTool({"objcopy", "--strip-debug", "--remove-section=.note.gnu.build-id", in, out});
  REQUIRE_MESSAGE((stripped.ok() && stripped->exit_code == 0), name);
  return ReadFile(out).value();
}

// A distccd on 127.0.0.1:<port>, serving only loopback, logging to its stderr (a file of the
// test's). As root it drops to nobody, as distccd insists.
class Distccd {
 public:
  explicit Distccd(const std::string& scratch) : port_(test::UnusedPort()), scratch_(scratch) {
    std::vector<std::string> args = {
        "--daemon", "--no-detach", "--listen",     "127.0.0.1",   "--port", std::to_string(port_),
        "--allow",  "127.0.0.1",   "--log-stderr", "--log-level", "info",   "--jobs",
        "2"};
    if (::geteuid() == 0) args.insert(args.end(), {"--user", "nobody"});
    program_ = std::make_unique<test::Program>(FindInPath("distccd"), args, scratch);
  }
  // SIGTERM: distccd ends its preforked children too.
  ~Distccd() {
    program_->Kill(SIGTERM);
    program_->Wait();
  }
  std::string host() const { return "127.0.0.1:" + std::to_string(port_); }
  // What it logged so far (the Program's stderr file).
  std::string Log() const {
    auto text = ReadFile(scratch_ + "/run.err");
    return text.ok() ? *text : "";
  }

 private:
  uint16_t port_;
  std::string scratch_;
  std::unique_ptr<test::Program> program_;
};

TEST_CASE(
    "khost tune --launcher distcc: distccd compiles every variant, the ELFs equal local ones") {
  if (FindInPath("distccd").empty() || FindInPath("distcc").empty()) {
    MESSAGE("skipped: no distcc (Debian package distcc; scripts/setup.sh installs it)");
    return;
  }
  test::TempDir tmp;
  const std::string scratch = tmp.path() + "/distccd";
  fs::create_directories(scratch);
  fs::create_directories(tmp.path() + "/distcc-state");  // DISTCC_DIR: distcc's locks
  Distccd distccd(scratch);
  // No fallback to a local compile and no back-off: a compile distccd does not make fails.
  const std::map<std::string, std::string> env = {{"DISTCC_HOSTS", distccd.host()},
                                                  {"DISTCC_FALLBACK", "0"},
                                                  {"DISTCC_BACKOFF_PERIOD", "0"},
                                                  {"DISTCC_DIR", tmp.path() + "/distcc-state"}};
  REQUIRE(test::WaitFor([&] { return Contains(distccd.Log(), "listening on"); }, 30));

  const std::vector<std::string> tune = {
      "tune",        "matmul", "--kernels", KTUNE_SOURCE_DIR "/kernels",
      "--toolchain", "native", "--sample",  "4",
      "--seed",      "3"};
  auto with = [&](const std::string& root, std::vector<std::string> extra) {
    std::vector<std::string> args = tune;
    args.insert(args.end(), {"--root", root});
    args.insert(args.end(), extra.begin(), extra.end());
    return test::RunKhost(args, tmp.path(), env);
  };
  // The same root built here, then again through distccd (its ELFs removed, so every variant
  // is built anew: paths name the root in debug information).
  const std::string root = tmp.path() + "/work", bin = root + "/matmul/run/bin";
  auto built_here = with(root, {});
  REQUIRE_MESSAGE(built_here.exit_code == 0, built_here.err);
  std::map<std::string, std::string> local;
  for (const auto& e : fs::directory_iterator(bin)) {
    if (e.path().extension() != ".elf") continue;
    local[e.path().filename().string()] = ReadFile(e.path().string()).value();
    fs::remove(e.path());
  }
  REQUIRE(local.size() == 4);
  auto built_there = with(root, {"--launcher", "distcc"});
  REQUIRE_MESSAGE(built_there.exit_code == 0, built_there.err);
  // distcc -j: 2 jobs on the one host, or the local cores if more.
  CHECK(Contains(built_there.out, " parallel builds through distcc (distcc -j: "));
  CHECK(Contains(built_there.out, "built 4, up to date 0, failed 0"));

  // distccd made every compile (matmul: its main and its constants per variant), and the ELFs
  // hold the local build's code and data.
  const std::string log = distccd.Log();
  const size_t compiled = Count(log, "COMPILE_OK");
  size_t objects = 0;
  for (const auto& e : fs::recursive_directory_iterator(root + "/matmul/run")) {
    if (e.path().extension() == ".o") ++objects;
  }
  CHECK(objects >= 8);
  CHECK_MESSAGE(compiled == objects, log);
  CHECK(Count(log, "COMPILE_ERROR") == 0);
  for (const auto& [name, bytes] : local) {
    const std::string path = bin + "/" + name;
    CHECK_MESSAGE(
        Loaded(path, bytes, tmp.path()) == Loaded(path, ReadFile(path).value(), tmp.path()),
        std::string(name + ": its code or data differ from the local build's"));
  }

  // The launcher is no part of the cache key: what distcc built is up to date without it, and
  // the other way round, and nothing more reached distccd.
  auto again = with(root, {});
  REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  CHECK(Contains(again.out, "built 0, up to date 4, failed 0"));
  auto through = with(root, {"--launcher", "distcc"});
  CHECK(Contains(through.out, "built 0, up to date 4, failed 0"));
  CHECK(Count(distccd.Log(), "COMPILE_OK") == compiled);

  // A launcher that is not installed: one line, before anything is built.
  auto missing = with(tmp.path() + "/none", {"--launcher", "icecc-not-here"});
  CHECK(missing.exit_code != 0);
  CHECK(Contains(missing.err, "needs icecc-not-here, which is not in PATH"));
  CHECK_FALSE(fs::exists(tmp.path() + "/none/matmul/run/bin"));
}

}  // namespace
}  // namespace ktune::host
