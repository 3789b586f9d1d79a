// A run of five variants whose statistics are known, and golden files: for the tests of
// host/report.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/fs.h"
#include "common/results.h"

namespace ktune::host::fixture {

// Six repetitions around `base` seconds: the same relative jitter for every variant.
inline const double kJitter[] = {0, 0.01, -0.01, 0.02, -0.02, 0.005};

// Variants (M, N) -> base kernel time: 8_32 fastest, 2x ahead of 8_16, and so on. l2_miss is
// proportional to the time (Spearman 1), instructions constant (no correlation), branches
// unrelated. A fifth variant crashes in one repetition and is left out.
inline std::vector<RepetitionRow> Fixture(double scale_8_32 = 1, double scale_4_16 = 1) {
  struct V {
    int m, n;
    double base, branches;
  };
  const V variants[] = {{4, 16, 0.004 * scale_4_16, 5},
                        {4, 32, 0.003, 9},
                        {8, 16, 0.002, 7},
                        {8, 32, 0.001 * scale_8_32, 6},
                        {16, 16, 0.0005, 4}};
  std::vector<RepetitionRow> rows;
  for (uint32_t i = 0; i < 5; ++i) {
    const V& v = variants[i];
    for (uint32_t rep = 0; rep < 6; ++rep) {
      RepetitionRow r;
      r.run_id = "run-fixture";
      r.variant_index = i;
      r.variant = "matmul_" + std::to_string(v.m) + "_" + std::to_string(v.n) + ".elf";
      r.elf = "matmul/run/bin/" + r.variant;
      r.params = {{"M", std::to_string(v.m)}, {"N", std::to_string(v.n)}};
      r.repetition = rep;
      const bool crash = i == 4 && rep == 2;
      r.valid = !crash;
      r.outcome = crash ? Outcome{OutcomeKind::kSignaled, 11} : Outcome{OutcomeKind::kExited, 0};
      const double t = v.base * (1 + kJitter[rep]);
      r.values = {{kWallTime, t * 1e9 + 2e5, "ns", 0, 0, ValueStatus::kOk},
                  {kKernelTime, t, "s", 0, 0, ValueStatus::kOk},
                  {"l2_miss", std::round(t * 1e7), "", 100, 100, ValueStatus::kOk},
                  {"instructions", 1000, "", 100, 100, ValueStatus::kOk},
                  {"branches", v.branches, "", 100, 100, ValueStatus::kOk}};
      rows.push_back(r);
    }
  }
  return rows;
}

// Compares `text` with test_data/golden/<name>, or rewrites it when KTUNE_UPDATE_GOLDEN is set.
inline void CheckGolden(const std::string& name, const std::string& text) {
  const std::string path = std::string(KTUNE_TEST_DATA) + "/golden/" + name;
  if (const char* update = std::getenv("KTUNE_UPDATE_GOLDEN"); update && *update) {
    REQUIRE(WriteFileAtomic(path, text).ok());
    return;
  }
  auto golden = ReadFile(path);
  REQUIRE_MESSAGE(golden.ok(), path << " is missing (KTUNE_UPDATE_GOLDEN=1 writes it)");
  CHECK_MESSAGE(*golden == text, name << " differs from its golden file; rendered:\n" << text);
}

}  // namespace ktune::host::fixture
