// Reads a kernel's run directory in the seed's layout, as the seed's scripts left it:
//
//   <root>/<kernel>/run/configs.json
//   <root>/<kernel>/run/bin/*.elf
//   <root>/<kernel>/run/test_data/...
//
// configs.json is {"variants": [{"BLOCK_SIZE_M": 4, ..., "elf_path": ..., "asm_path": ...,
// "perf_data_path": ..., "perf_report_path": ...}], "perf_files": {"stat": ...}}, with paths
// relative to <root>. Every key of a variant that is not a path is a parameter. ktune also reads
// an optional "args": [..] per variant (argv for the ELF), "shape": {"M": 64, ...} (the problem
// shape it runs at, host/tune/shapes.h) and "test_data": "<kernel>/run/test_data/<shape>" (its
// test data directory when a tune has several shapes, given to the ELF as KTUNE_TEST_DATA) and
// "work": {"flops": F, "bytes": B} (one call's floating-point operations and bytes to and from
// memory, from the spec's work formulas: docs/KSPEC.md; either may be absent).
//
// The bundle sent to an agent holds configs.json, every variant's ELF and everything under
// test_data/, at their paths relative to <root>, so the ELF finds its data as the seed's did.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/manifest.h"
#include "common/results.h"
#include "common/status.h"

namespace ktune::host {

// The work of one call of a variant's kernel, as its spec declares it (host/tune/kspec.h).
struct VariantWork {
  std::optional<double> flops;  // floating-point operations
  std::optional<double> bytes;  // bytes moved to and from memory
  bool empty() const { return !flops && !bytes; }
};

struct KernelVariant {
  std::string name;      // the ELF's file name
  std::string elf_path;  // relative to root
  std::vector<std::string> args;
  Params params;
  std::string asm_path;     // its disassembly, relative to root; "" when configs.json names none
  Params shape{};           // the problem shape it runs at; empty when configs.json gives none
  std::string test_data{};  // relative to root, under <kernel>/run/test_data; "" for that one
  VariantWork work{};
};

struct KernelDir {
  std::string root;  // the directory holding <kernel>/
  std::string kernel;
  std::string run_dir;  // <root>/<kernel>/run
  std::vector<KernelVariant> variants;
  std::string perf_stat_path;  // perf_files.stat, relative to root; "" when absent
  // configs.json's "build": what built the variants (khost tune's BuildRecord: the spec's hash,
  // the toolchain, the sources' key, khost's version); empty for the seed's.
  std::map<std::string, std::string> build = {};
};

// The paths of the layout above (pure). RunDirUnderRoot: <kernel>/run, relative to the root as
// configs.json's paths are; KernelRunDir: <root>/<kernel>/run.
std::string RunDirUnderRoot(const std::string& kernel);
std::string KernelRunDir(const std::string& root, const std::string& kernel);
// KernelRunDir for a command that reads or writes there: what exists of <root>/<kernel>/run must
// resolve inside the root (a link out of it is refused, named: host/util/user_paths.h).
Result<std::string> RunDirBeneath(const std::string& root, const std::string& kernel);

// The function of a kernel's variants that samples are attributed to: <kernel>_kernel, the entry
// symbol of the seed's kernels and of every kernel spec (host/tune/kspec.h) (pure).
std::string KernelSymbol(const std::string& kernel);

// Parses configs.json text (pure; for tests and LoadKernelDir). `kernel` is used in messages.
Result<KernelDir> ParseConfigsJson(const std::string& text, const std::string& kernel);

// Loads <root>/<kernel>/run/configs.json and checks that every variant's ELF exists. Every path
// it names (elf_path, asm_path, perf_files.stat) is made relative to the root, and one outside it
// refused; every file is read beneath the root (host/util/user_paths.h OpenBeneath), so a link
// that leads out of it is refused and named.
Result<KernelDir> LoadKernelDir(const std::string& root, const std::string& kernel);
// The same from configs.json's text (which a caller that just wrote it has), the ELFs checked.
Result<KernelDir> KernelDirOf(const std::string& root, const std::string& kernel,
                              const std::string& configs_json);

// The bundle's files with their hashes (reads and hashes every file). Test data numbered from 0
// (host/results/test_data_files.h) is refused with what to do: an earlier khost tune's numbering.
Result<Manifest> BuildManifest(const KernelDir& dir);

}  // namespace ktune::host
