// A RunRequest made into the Measurer's job (agent/server/measurer.h): checked against the store
// (its bundle is there and holds every variant's ELF) and this machine (its CPUs, its event
// catalog), with the run's directory and working directory from the store. A run planned before
// (being resumed: its accepted.pb, agent/store/run_files.h) keeps the passes it was given.
#pragma once

#include "agent/server/measurer.h"
#include "agent/store/store.h"
#include "common/cpu.h"
#include "common/status.h"
#include "protocol/ktune.pb.h"

namespace ktune::agent {

// Everything but the callbacks, and the passes of a run not planned yet.
Result<Measurer::Job> JobFor(const wire::RunRequest& req, Store& store, const CpuId& cpu);

// The journal's files (agent/measure/journal.h) in a run's directory, as the store names them.
JournalFiles JournalFilesOf(const RunLayout& run);

}  // namespace ktune::agent
