// A corpus on disk (khost corpus): extract, sample, export. A corpus directory holds
//
//   DIR/index.json, DIR/index.csv   every kernel found (host/corpus/corpus.h's CorpusIndex)
//   DIR/kernels/<name>.py           each unique kernel once (names that meet never overwrite)
//   DIR/model_output_codes/<m>.py   extract only: each model's output_code.py
//
// extract makes one from Inductor's debug dumps (TORCH_COMPILE_DEBUG=1), sample a smaller one of
// the same layout from it, export a dataset of its kernels. Each returns its summary line for
// people (without a line ending).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/corpus/corpus.h"

namespace ktune::host {

// Every output_code.py under `debug_dirs` (a file under two overlapping ones once, in path
// order) into the new corpus `out` (which must not hold one yet). A file that cannot be read, is
// not text or is Python the extractor cannot follow is skipped with one line on `warnings`
// ("khost corpus: skipped FILE: why"); the summary counts what was skipped and why.
Result<std::string> ExtractCorpus(const std::vector<std::string>& debug_dirs,
                                  const std::string& out, std::ostream& warnings);

// A representative subset of the corpus's unique kernels (SampleKernels) into the new corpus
// `out`, its index saying how it was chosen.
Result<std::string> SampleCorpus(const std::string& corpus, const std::string& out,
                                 const CorpusSampleOptions& options);

struct CorpusExportOptions {
  std::string format = "text-completion";  // the one shape: [{"input": "<kernel source>"}, ...]
  bool dedup = false;                      // identical kernels once
  size_t min_lines = 0, max_lines = 0;     // length limits, 0 for none
};
// The corpus's kernels as a dataset file `out` (torchtune's text-completion shape); `out` may not
// be one of the corpus's own files.
Result<std::string> ExportCorpus(const std::string& corpus, const std::string& out,
                                 const CorpusExportOptions& options);

}  // namespace ktune::host
