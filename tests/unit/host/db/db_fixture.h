// Rows and run metadata for the tuning database's unit tests.
#pragma once

#include <string>

#include "common/results.h"
#include "host/results/results_dir.h"

namespace ktune::host::dbtest {

// Variant `variant`'s repetition `rep`: valid, at BLOCK=<variant+1> and M=64, its kernel-time in
// seconds and wall-time in ns.
inline RepetitionRow Row(const std::string& run_id, uint32_t variant, uint32_t rep, double kernel_s,
                         int64_t start_ns = 1'000'000'000) {
  RepetitionRow r;
  r.run_id = run_id;
  r.board = "x86_64:test";
  r.timestamp_ns = start_ns + rep;
  r.variant_index = variant;
  r.variant = "v" + std::to_string(variant) + ".elf";
  r.elf = "k/run/bin/" + r.variant;
  r.elf_hash = "h" + std::to_string(variant);
  r.params = {{"BLOCK", std::to_string(variant + 1)}};
  r.shape = {{"M", "64"}};
  r.repetition = rep;
  r.valid = true;
  r.values = {{kKernelTime, kernel_s, "s", 1, 1, ValueStatus::kOk},
              {kWallTime, kernel_s * 2e9, "ns", 1, 1, ValueStatus::kOk}};
  return r;
}

inline RunMeta Meta(const std::string& run_id) {
  RunMeta meta;
  meta.run_id = run_id;
  meta.kernel = "k";
  meta.agent = "board1";
  meta.cpu = "test cpu";
  meta.complete = true;
  meta.method = "m";
  meta.inputs = {{{"64"}, "td"}, {{"64"}, "td"}};
  return meta;
}

}  // namespace ktune::host::dbtest
