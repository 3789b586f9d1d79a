// The test ELFs' bytes and a sampling profile of spin.elf: for the tests of samples, ELF symbols
// and their reports.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "common/fs.h"
#include "host/results/samples.h"

namespace ktune::host::fixture {

inline std::string Bytes(const std::string& elf) {
  return ReadFile(KTUNE_ELVES_DIR "/" + elf).value();
}

inline ProfileRecord Record(uint64_t kernel_ip) {
  ProfileRecord r;
  r.variant_index = 0;
  r.pass = 1;
  r.profile.events = {"cpu-clock:u", "cycles"};
  r.profile.unsupported = {"cycles: No such file or directory"};
  r.profile.hits = {
      {0, kernel_ip, 3, 300}, {0, 0xffffffff81000000ull, 1, 100}, {7, kernel_ip, 9, 9}};
  r.profile.chains = {{0, {kernel_ip, kernel_ip + 1}, 2, 200}};
  r.profile.mappings = {{0x401000, 0x1000, 0x1000, "/x/k/run/bin/spin.elf"}};
  r.profile.samples = 4;
  r.profile.lost = 2;
  return r;
}

}  // namespace ktune::host::fixture
