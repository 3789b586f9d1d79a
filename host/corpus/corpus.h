// The Triton kernels of an Inductor output_code.py (`khost corpus`): the functions decorated
// with Triton's decorators (@triton.jit, @triton.autotune, @triton.heuristics,
// @triton_heuristics.*), found both in the file itself and in the kernel modules Inductor
// passes to async_compile.triton('name', '''source'''), each with the imports it needs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune::host {

struct CorpusKernel {
  std::string name;  // async_compile.triton's name when the kernel came in one, else the def's
  std::string kind;  // pointwise, reduction, persistent_reduction, template or other
  int first_line = 0, last_line = 0;  // in the file, decorators included, 1-based, inclusive
  std::string source;                 // the imports it needs, a blank line, the function
  size_t length_lines = 0;            // last_line - first_line + 1
};

// Pure. The kernels of one output_code.py in the order they appear: each top-level def of the
// file with a Triton decorator, with the imports it uses; and each kernel module as one kernel,
// from its first such def to its last (a kernel and the helpers it calls), with all its
// imports. Source the extractor cannot follow (an unterminated string, unbalanced brackets, a
// NUL byte) is an InvalidArgument "line N: ..." in the file's lines (inside a kernel module,
// followed by the module's name and first line).
Result<std::vector<CorpusKernel>> ExtractTritonKernels(std::string_view python_source);

// Pure. Inductor's kind of a kernel: from its name (triton_poi_, triton_red_, triton_per_,
// triton_tem_) or else its decorators (triton_heuristics.pointwise, ...); "other" for anything
// else (a user's own @triton.jit).
std::string TritonKernelKind(const std::string& name, const std::vector<std::string>& decorators);

// Pure. The text two kernels share when they are the same kernel: `name` and the names of the
// top-level defs replaced by "kernel" (also as a string, as in Inductor's 'kernel_name'),
// comments and blank lines dropped, the tokens of each logical line one space apart after its
// indentation.
std::string NormalizeKernel(std::string_view source, const std::string& name);

// Pure. Where `bytes` stop being text: the offset of the first NUL byte or byte that is not
// well-formed UTF-8 (overlong forms and surrogates included), or nothing for text.
std::optional<size_t> FirstNonTextByte(std::string_view bytes);

// Pure. The model an output_code.py belongs to: the directory holding its torch_compile_debug
// (a benchmark's per-model output directory), else the last component of the directory given.
std::string ModelOf(const std::string& debug_dir, const std::string& file);

// One kernel of a corpus (khost corpus extract's index.json and index.csv).
struct CorpusEntry {
  std::string name, model;
  std::string source_file;  // the output_code.py it came from, as found
  int first_line = 0, last_line = 0;
  size_t length_lines = 0;
  std::string kind;
  std::string hash;  // of NormalizeKernel: identical kernels share it
  std::string file;  // the kernel's file, relative to the index (kernels/<name>.py)
};

struct CorpusIndex {
  std::vector<CorpusEntry> kernels;  // every kernel found; duplicates share a file
  // What sample chose them with (empty for extract's index): n, long_portion, long_pool, seed.
  std::string sampled_with;
};

// index.json and index.csv of `index` (the CSV has the kernels only).
std::string CorpusIndexJson(const CorpusIndex& index);
std::string CorpusIndexCsv(const CorpusIndex& index);
// Reads index.json back; anything not in its shape is an InvalidArgument.
Result<CorpusIndex> ParseCorpusIndex(std::string_view json_text);

struct CorpusSampleOptions {
  size_t n = 100;
  double long_portion = 0.8;  // of n, drawn from the long pool
  double long_pool = 0.3;     // the longest fraction of all kernels
  uint64_t seed = 0;
};

// Pure. Which of `lengths` (one per kernel) a sample takes, in ascending order: of n,
// round(long_portion * n) drawn from the longest ceil(long_pool * count) kernels (ties in length
// by index) and the rest from the others, each draw uniform without replacement from a
// generator seeded with `seed`, so the same inputs always give the same choice. A pool with fewer
// kernels than its share gives them all and the other pool makes up the difference, as far as it
// can; n at least the count takes every kernel.
std::vector<size_t> SampleKernels(const std::vector<size_t>& lengths,
                                  const CorpusSampleOptions& options);

}  // namespace ktune::host
