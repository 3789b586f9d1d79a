// Building a kernel's variants for `khost tune`: one static ELF per configuration, its assembly
// dump and its build directory, compiled in parallel and cached by content.
//
//   <root>/<kernel>/run/bin/<prefix><kernel>_<values><suffix>.elf     the variant
//   <root>/<kernel>/run/bin/<prefix><kernel>_<values><suffix>.elf.s   llvm-objdump of its own code
//   <root>/<kernel>/run/build/<toolchain>/<kernel>_<values>/          constants.c,
//        blk_constants.json, objects, build.log (every command and its output) and key
//
// A variant's key hashes everything its ELF depends on: the toolchain profile, the compilers'
// --version output, every command line (flags, -D values, paths), and the bytes of every source,
// generated file and file in the spec's directory and include directories. A variant whose key
// file matches and whose ELF and dump exist is not rebuilt. The ELF and dump are written under
// temporary names and renamed into place, and the key last, so an interrupted build is redone.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "host/tune/config_space.h"
#include "host/tune/kspec.h"
#include "host/tune/shapes.h"
#include "host/tune/toolchain.h"

namespace ktune::host {

struct VariantJob {
  std::string stem;                  // matmul_4_16_8 (its build directory's name)
  Config config;                     // the spec's parameters, in order
  std::string elf_name;              // VL256_matmul_4_16_8_g_static_O2.elf
  std::string work_dir;              // <run>/build/<toolchain>/<stem>
  std::vector<std::string> sources;  // compiled in order; .c, .cc/.cpp/.cxx, .ll/.llir
  // Files written into work_dir before compiling (when their content changed): name -> bytes.
  std::vector<std::pair<std::string, std::string>> generated;
};

// "matmul_4_16_8": the kernel and the configuration's values in parameter order.
std::string VariantStem(const KernelSpec& spec, const Config& config);

// constants.c: `const int <kernel>_<NAME> = <value>;` for every parameter and constant (the
// seed's launcher declares them `extern const int`), and ktune_atol[]/ktune_rtol[], one per
// output, read by kernels/common/ktune_kernel.c.
std::string ConstantsSource(const KernelSpec& spec, const Config& config);

// blk_constants.json in the seed's format: {"BLOCK_SIZE_M": 4, ...}, parameters then constants.
std::string BlkConstantsJson(const KernelSpec& spec, const Config& config);

// -DNAME=VALUE for every parameter and constant, so C kernels see them at compile time.
std::vector<std::string> Defines(const KernelSpec& spec, const Config& config);

// One job per configuration, in the order given; `triton_ir` (optional, same length as
// `configs`) holds each configuration's retargeted .llir text and launcher path, which replace
// the spec's kernel sources.
struct TritonSources {
  std::string ir_text, launcher_path;
};
std::vector<VariantJob> PlanVariants(const KernelSpec& spec, const Toolchain& toolchain,
                                     const std::vector<Config>& configs,
                                     const std::vector<TritonSources>& triton_ir,
                                     const std::string& run_dir);

// What every variant's key shares: profile, compiler versions, spec directory and include files.
Result<std::string> SharedKey(const KernelSpec& spec, const Toolchain& toolchain);

// `compile` as it runs through the profile's launcher (pure; the cache key has `compile`
// itself). Through distcc (3.4), a clang compile gets what it needs to make there what it makes
// here: its target as "-target X" (distcc adds the host's own target to clang unless it sees
// that form, not "--target=X") and -fdebug-compilation-dir=`cwd` (clang names the directory it
// runs in, distccd's, where gcc keeps the one the preprocessed source names).
std::vector<std::string> LaunchedCompile(const std::vector<std::string>& launcher,
                                         const std::vector<std::string>& compile,
                                         const std::string& cwd);

// The command compiling `source` to `object` (pure).
std::vector<std::string> CompileCommand(const KernelSpec& spec, const Toolchain& toolchain,
                                        const VariantJob& job, const std::string& source,
                                        const std::string& object);

enum class BuildState { kBuilt, kCached, kFailed };

struct VariantBuild {
  BuildState state = BuildState::kFailed;
  std::string message;  // kFailed: the failing command and the last lines of its output
  double seconds = 0;
  // kFailed at the link because no source defines the kernel's entry symbol (host/results/
  // kernel_dir.h KernelSymbol: "matmul_kernel"; a spec without its kernel_source): the spec's
  // fault, which every configuration shares.
  bool kernel_undefined = false;
  bool skipped = false;  // kFailed without a try: an earlier variant's link lacked the kernel
};

// The first symbol a failed link's output says nothing defines: GNU ld's "undefined reference to
// `X'", lld's "undefined symbol: X"; "" when it says none (pure).
std::string UndefinedSymbol(std::string_view link_output);

// The error of a spec whose sources define no <kernel>_kernel (a build's kernel_undefined): what
// the spec compiles, and that `not_built` more variants were not built.
Status KernelUndefinedError(const KernelSpec& spec, size_t not_built);

// Builds `jobs` with `parallel` workers; a failing variant does not stop the others, but for a
// link that lacks the kernel (kernel_undefined): the jobs not started yet are then skipped (a
// kernel that an #if leaves out of one configuration only stops the others too: its spec is
// then to fix).
// `done` is called (one call at a time) as each variant finishes.
std::vector<VariantBuild> BuildVariants(
    const KernelSpec& spec, const Toolchain& toolchain, const std::vector<VariantJob>& jobs,
    const std::string& shared_key, const std::string& bin_dir, size_t parallel,
    const std::function<void(size_t index, const VariantBuild&)>& done);

// configs.json in the seed's format (host/results/kernel_dir.h reads it): the variants that did not
// fail, at each shape they run at (configuration after configuration), each with its parameters,
// elf_path, asm_path, the seed's perf_data_path/perf_report_path, the shape's args and the shape;
// with several shapes also its test_data directory; perf_files.stat. Paths are relative to the
// root holding <kernel>/; and "build", what built them (BuildRecord), which runs keep in their
// metadata and the tuning database records (pure).
std::string ConfigsJson(const KernelSpec& spec, const std::vector<VariantJob>& jobs,
                        const std::vector<VariantBuild>& builds,
                        const std::vector<ShapeRun>& shapes,
                        const std::map<std::string, std::string>& build);

// What built a kernel's variants: "spec_hash" (the .kspec file's, read), "toolchain" (the
// profile's name), "sources" (SharedKey: the profile, the compilers' versions, the sources and
// headers) and "ktune" (khost's version).
std::map<std::string, std::string> BuildRecord(const KernelSpec& spec, const Toolchain& toolchain,
                                               const std::string& shared_key);

}  // namespace ktune::host
