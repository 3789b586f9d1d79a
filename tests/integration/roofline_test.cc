// khost roofline for real: the microkernels of kernels/roofline built natively, measured on a
// real agentd, the ceilings kept in the tuning database; then a matmul run analyzed under them.
// The sweep is kept small (working sets to 256 KiB, 4 MiB per call): this checks the path and the
// arithmetic, not this machine's numbers (bench/roofline.sh measures those against likwid-bench).
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "tests/contains.h"
#include "tests/integration/browser.h"
#include "tests/integration/harness.h"

namespace ktune::host {
namespace {

using test::Contains;

TEST_CASE("khost roofline measures the board's ceilings and analyze places a run under them") {
  test::TempDir tmp;
  test::AgentProcess agent(tmp.path() + "/store");
  const std::string root = tmp.path() + "/work", db = "sqlite:" + tmp.path() + "/t.db";
  const std::string at = agent.address().ToString();
  auto roof =
      test::RunKhost({"roofline", "--agent", at, "--toolchain", "native", "--root",
                      tmp.path() + "/roofline", "--max-size", "256KiB", "--bytes-per-call", "4MiB",
                      "--iterations", "200000", "--reps", "3", "--db", db, "--format", "json"},
                     tmp.path());
  REQUIRE_MESSAGE(roof.exit_code == 0, roof.err);
  const auto j = nlohmann::json::parse(roof.out);
  CHECK(j.at("schema") == "ktune-roofline");
  CHECK(j.at("vectors") == "x86-64 AVX2");
  // fp32 and fp64, scalar and the 16- and 32-byte vectors: 6 compute ceilings, all positive, the
  // widest fp32 vector the fastest.
  REQUIRE(j.at("compute").size() == 6);
  double scalar = 0, widest = 0;
  for (const auto& c : j.at("compute")) {
    CHECK(c.at("gflops").get<double>() > 0);
    if (c.at("name") == "fp32 scalar") scalar = c.at("gflops").get<double>();
    if (c.at("name") == "fp32 vector 32 B") widest = c.at("gflops").get<double>();
  }
  CHECK(widest > scalar);
  // Every stream measured at each of the 7 working sets from 4 KiB to 256 KiB, and levels found.
  REQUIRE(j.at("streams").size() == 4);
  for (const auto& s : j.at("streams")) {
    CAPTURE(s.at("stream"));
    CHECK(s.at("points").size() == 7);
    CHECK_FALSE(s.at("levels").empty());
    // Each level's bandwidth is taken from its working sets from from_bytes, one of the points.
    for (const auto& l : s.at("levels")) {
      const auto from = l.at("from_bytes").get<uint64_t>();
      CHECK(std::any_of(s.at("points").begin(), s.at("points").end(), [&](const auto& p) {
        return p.at("bytes").template get<uint64_t>() == from;
      }));
      if (l.at("size_bytes").get<uint64_t>() > 0) CHECK(from <= l.at("size_bytes").get<uint64_t>());
    }
  }
  CHECK_FALSE(j.at("memory").empty());
  CHECK(Contains(roof.err, "khost roofline: kept in "));
  CHECK(j.at("threads") == 1);
  CHECK(j.at("sweep").at("max_bytes") == 256 << 10);
  CHECK(j.at("sweep").at("from") == "--max-size");

  // Both cores at once: the all-core ceilings, kept beside the one-core ones. No --max-size: the
  // sweep goes to 4x this machine's last cache, as the agent's system check lists it (one sweep
  // of each set and one repetition, to keep it short).
  auto both =
      test::RunKhost({"roofline", "--agent", at, "--toolchain", "native", "--root",
                      tmp.path() + "/roofline2", "--bytes-per-call", "4KiB", "--iterations",
                      "200000", "--reps", "1", "--threads", "2", "--db", db, "--format", "json"},
                     tmp.path());
  REQUIRE_MESSAGE(both.exit_code == 0, both.err);
  const auto j2 = nlohmann::json::parse(both.out);
  CHECK(j2.at("threads") == 2);
  CHECK(j2.at("compute").size() == 6);
  const uint64_t last = j2.at("sweep").at("max_bytes").get<uint64_t>();
  if (std::filesystem::exists("/sys/devices/system/cpu/cpu0/cache/index0/size")) {
    CHECK(Contains(j2.at("sweep").at("from").get<std::string>(), "4 x L"));
  } else {
    CHECK(j2.at("sweep").at("from") == "the board lists no caches");
  }
  // 4 KiB doubling to the last, the sets shared by the two threads.
  CHECK(j2.at("streams").at(0).at("points").size() == std::bit_width(last / 4096));
  // khost agent status shows both, with the runs that measured them.
  auto status = test::RunKhost({"agent", "status", "--agent", at, "--db", db}, tmp.path());
  REQUIRE_MESSAGE(status.exit_code == 0, status.err);
  CHECK(Contains(status.out, "roofline:    one core (runs "));
  CHECK(Contains(status.out, "roofline:    2 threads (runs "));
  CHECK(Contains(status.out, "  compute:   fp32 "));
  CHECK(Contains(status.out, " GFLOP/s (vector 32 B)"));
  CHECK(Contains(status.out, "  memory:    "));
  auto none = test::RunKhost(
      {"agent", "status", "--agent", at, "--db", "sqlite:" + tmp.path() + "/none.db"}, tmp.path());
  REQUIRE_MESSAGE(none.exit_code == 0, none.err);
  CHECK(Contains(none.out, "roofline:    no ceilings for this board in "));
  CHECK(Contains(none.out, "(khost roofline --agent " + at + " measures them)"));

  // A matmul run on the same board: analyze finds the ceilings and places every variant.
  auto tune =
      test::RunKhost({"tune", "matmul", "--root", root, "--toolchain", "native", "--sample", "3",
                      "--seed", "1", "--shape", "M=64", "--shape", "N=64", "--shape", "K=64"},
                     tmp.path());
  REQUIRE_MESSAGE(tune.exit_code == 0, tune.err);
  auto run = test::RunKhost(
      {"run", "matmul", "--root", root, "--reps", "3", "--agent", at, "--db", db}, tmp.path());
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  auto analyzed = test::RunKhost(
      {"analyze", "matmul", "--root", root, "--db", db, "--out", tmp.path() + "/analysis"},
      tmp.path());
  REQUIRE_MESSAGE(analyzed.exit_code == 0, analyzed.err);
  CHECK(Contains(analyzed.out,
                 "roofline: each variant's work over its median kernel-time, under "
                 "the board's ceilings (fp32)"));
  const auto a = nlohmann::json::parse(ReadFile(tmp.path() + "/analysis/analysis.json").value());
  const auto& placed = a.at("roofline");
  CHECK(placed.at("ceilings") == true);
  REQUIRE(placed.at("variants").size() == 3);
  for (const auto& v : placed.at("variants")) {
    // 2*64^3 flops over 3 * 64*64 * 4 bytes: intensity 10.67 FLOP/byte.
    CHECK(v.at("flops_per_byte").get<double>() == doctest::Approx(2.0 * 64 * 64 * 64 / 49152));
    CHECK(v.at("fraction_of_attainable").get<double>() > 0);
    CHECK(v.at("level").is_string());
  }
  if (a.at("verdict").at("decision") != "unstable") {  // an unstable verdict names no winner
    CHECK(
        Contains(a.at("verdict").at("text").get<std::string>(), "of the board's attainable peak"));
  }

  // The roofline plot, drawn and inlined in the report, which Chromium renders.
  for (const char* ext : {".png", ".svg"}) {
    CHECK(std::filesystem::exists(tmp.path() + "/analysis/roofline" + ext));
  }
  const std::string html = ReadFile(tmp.path() + "/analysis/report.html").value();
  CHECK(Contains(html, "<h2>Roofline</h2>"));
  if (const auto view = test::ViewInChromium(tmp.path() + "/analysis/report.html", tmp.path())) {
    CHECK(Contains(view->dom, "<h2>Roofline</h2>"));
    CHECK(Contains(view->dom, "arithmetic intensity (FLOP/byte)"));  // the plot's axis, in its SVG
    CHECK(Contains(view->dom, "winner"));
    CHECK_FALSE(Contains(view->console, "Uncaught"));
  } else {
    MESSAGE("skipped the browser check: no chromium (Debian package chromium)");
  }

  // Without ceilings for the board (another database): the rates, and how to measure them.
  auto bare = test::RunKhost(
      {"analyze", "matmul", "--root", root, "--db", "sqlite:" + tmp.path() + "/empty.db",
       "--no-plots", "--out", tmp.path() + "/bare"},
      tmp.path());
  REQUIRE_MESSAGE(bare.exit_code == 0, bare.err);
  CHECK(Contains(bare.out, "khost roofline --agent <its agent> measures them"));
}

}  // namespace
}  // namespace ktune::host
