// khost db import ROOT: every run under ROOT (<kernel>/run/results/<run_id>.csv and its metadata)
// into the tuning database, idempotent: a run recorded already is updated (a run completed since
// gains its rows), never doubled. A run whose file cannot be read or recorded is named and left
// out; the others go in.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "host/db/tuning_db.h"

namespace ktune::host {

struct ImportSummary {
  size_t kernels = 0, runs = 0;
  size_t lines_new = 0, lines_held = 0;  // measurements added, and held already
  std::vector<std::string> skipped;      // one line each: the file and why
};

// Imports every run of every kernel directory under `root` (each read beneath it: a link that
// leads out is refused and named) into `db`; `host`, the machine recorded for them.
Result<ImportSummary> ImportRoot(TuningDb& db, const std::string& root, const std::string& host);

// One run of ImportRoot's: the results file `path` of `kernel`, whose run directory `run_dir`
// was checked beneath the root (RunDirBeneath), with its metadata, recorded into `db` and
// counted in `out`'s runs and lines, or named in its skipped with why.
void ImportRun(TuningDb& db, const std::string& kernel, const std::string& run_dir,
               const std::string& path, const std::string& host, ImportSummary& out);

}  // namespace ktune::host
