// khost installed: `cmake --install` of this build tree into a scratch prefix, and the Debian
// package cpack makes of it unpacked into a scratch root (dpkg-deb -x, no chroot or container),
// each run from where it was put: the installed khost tunes the example kernel from its shipped
// kernels and toolchain profiles and measures it on the installed agentd beside it.
#include <doctest/doctest.h>

#include <filesystem>

#include "common/fs.h"
#include "common/version.h"
#include "tests/contains.h"
#include "tests/integration/harness.h"

namespace ktune {
namespace {
namespace fs = std::filesystem;
using test::Contains;

const std::string kBuildDir = fs::path(KTUNE_BIN_DIR).parent_path().string();

// The installed khost with a home of its own (no user configuration, no agent named).
test::CommandResult Installed(const std::string& khost, const std::vector<std::string>& args,
                              const std::string& home) {
  REQUIRE(MakeDirs(home).ok());
  return test::RunProgram(khost, args, home,
                          {{"XDG_CONFIG_HOME", home + "/config"},
                           {"XDG_CACHE_HOME", home + "/cache"},
                           {"XDG_DATA_HOME", home + "/data"},
                           {"KTUNE_DB", "none"}});
}

TEST_CASE("cmake --install: khost, agentd, what khost ships, man pages and completions") {
  test::TempDir tmp;
  const std::string prefix = tmp.path() + "/prefix";
  const auto install =
      test::RunProgram("cmake", {"--install", kBuildDir, "--prefix", prefix}, tmp.path());
  REQUIRE_MESSAGE(install.exit_code == 0, (install.out + install.err));
  for (const char* file :
       {"bin/khost", "bin/agentd", "share/ktune/toolchains/native.profile",
        "share/ktune/kernels/matmul/matmul.kspec", "share/ktune/scripts/ktune-agentd.service",
        "share/man/man1/khost.1", "share/man/man1/khost-run.1",
        "share/bash-completion/completions/khost", "share/zsh/vendor-completions/_khost",
        "share/doc/ktune/README.md", "share/doc/ktune/KSPEC.md"}) {
    CHECK_MESSAGE(fs::exists(prefix + "/" + file), file);
  }
  CHECK(!fs::is_empty(prefix + "/share/ktune/groups"));
  const std::string run_page = ReadFile(prefix + "/share/man/man1/khost-run.1").value();
  CHECK(run_page.starts_with(".TH KHOST-RUN 1"));
  CHECK(Contains(run_page, ".B \\-\\-reps ARG"));
  CHECK_FALSE(Contains(run_page, "\\-\\-kernel "));  // an argument, not an option
  // Every page is roff that groff reads without a warning.
  for (const auto& page : std::filesystem::directory_iterator(prefix + "/share/man/man1")) {
    const auto groff =
        test::RunProgram("groff", {"-man", "-ww", "-z", page.path().string()}, tmp.path());
    CHECK_MESSAGE((groff.exit_code == 0 && groff.err.empty()), page.path() << ": " << groff.err);
  }

  const std::string khost = prefix + "/bin/khost";
  const std::string home = tmp.path() + "/home";
  const auto version = Installed(khost, {"--version"}, home);
  CHECK(version.out == "khost " KTUNE_VERSION " (commit " KTUNE_COMMIT ")\n");
  // No --kernels or --toolchains: the installed khost takes <prefix>/share/ktune's.
  const std::string root = tmp.path() + "/work";
  const auto tune = Installed(khost,
                              {"tune", "matmul", "--root", root, "--toolchain", "native",
                               "--sample", "2", "--seed", "1", "--check"},
                              home);
  REQUIRE_MESSAGE(tune.exit_code == 0, tune.err);
  // No agent: the local agentd it starts is the one beside it, <prefix>/bin/agentd (the only
  // place an installed khost looks).
  const auto run =
      Installed(khost, {"run", "matmul", "--root", root, "--reps", "2", "--warmup", "0"}, home);
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  CHECK(Contains(run.err, "started a local agentd on 127.0.0.1:"));
  CHECK(Contains(run.out, "best: matmul_"));
}

TEST_CASE("cpack: a Debian package of khost that runs from where dpkg-deb puts it") {
  test::TempDir tmp;
  const auto pack = test::RunProgram(
      "cpack", {"--config", kBuildDir + "/CPackConfig.cmake", "-B", tmp.path() + "/pkg"},
      tmp.path());
  REQUIRE_MESSAGE(pack.exit_code == 0, (pack.out + pack.err));
  std::string deb;
  for (const auto& e : fs::directory_iterator(tmp.path() + "/pkg")) {
    if (e.path().extension() == ".deb") deb = e.path().string();
  }
  REQUIRE_MESSAGE(!deb.empty(), pack.out);
  CHECK(fs::path(deb).filename().string().starts_with("ktune_" KTUNE_VERSION "_"));
  const auto fields = test::RunProgram("dpkg-deb", {"-f", deb, "Package", "Depends"}, tmp.path());
  REQUIRE(fields.exit_code == 0);
  CHECK(Contains(fields.out, "Package: ktune\n"));
  CHECK(Contains(fields.out, "libc6"));  // from the binaries' libraries (dpkg-shlibdeps)

  const std::string root = tmp.path() + "/root";
  REQUIRE(test::RunProgram("dpkg-deb", {"-x", deb, root}, tmp.path()).exit_code == 0);
  const std::string khost = root + "/usr/bin/khost";
  const std::string home = tmp.path() + "/home";
  CHECK(Installed(khost, {"--version"}, home).out == "khost " KTUNE_VERSION " (commit " KTUNE_COMMIT
                                                     ")\n");
  // Its defaults are the package's own files.
  const auto help = Installed(khost, {"tune", "--help"}, home);
  CHECK(Contains(help.out, root + "/usr/share/ktune/kernels"));
  CHECK(fs::exists(root + "/usr/bin/agentd"));
  CHECK(fs::exists(root + "/usr/share/man/man1/khost-tune.1"));
}

}  // namespace
}  // namespace ktune
