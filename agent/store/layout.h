// Where everything lives under agentd's store directory; the one place its paths are built, down
// to each file's name:
//   blobs/<2 hex>/<hash>      file contents, named by their hash, read-only
//   tmp/                      what the agent is writing: <hash>.<unique>, a blob being received,
//                             never visible under blobs/ until verified; tree.<unique>, a
//                             bundle's tree being built (emptied as the agent starts)
//   bundles/<id>/manifest     a bundle's manifest (common/manifest.h canonical text); its mtime
//                             is when the bundle was last pushed or run (eviction is LRU)
//   bundles/<id>/tree/        the bundle materialized: the seed's layout, <kernel>/run/...,
//                             fsynced before it appears, read-only (runs share it)
//   runs/<run_id>/            a run (RunLayout): its journal, results.csv and profiles.frames
//                             (agent/measure/journal.h, which is given these paths), and beside
//                             it request.pb, accepted.pb and done (agent/store/run_files.h)
//   work/<run_id>/            the kernels' working directory while the run measures
//                             (agent/measure/sandbox.h)
//   pmu-budgets               counter budgets per CPU model (agent/measure/passes.h)
//   tuned-system              the values tune-system replaced (agent/server/tune_system.h)
//   agentd.log, agentd.pid    a daemon's log and process id (agent/main.cc)
//   agentd.lock               locked by the one agent using the store, and holding its pid
//                             (agent/store/store.h Store::Open)
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ktune::agent {

// The files of one run's directory, runs/<run_id>/.
class RunLayout {
 public:
  explicit RunLayout(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }
  // The journal: the rows, and the sampling profiles of some of them, one protocol frame each.
  std::string results() const { return dir_ + "/results.csv"; }
  std::string profiles() const { return dir_ + "/profiles.frames"; }
  // What was asked (the RunRequest), how it was planned (the RunAccepted), that it finished.
  std::string request() const { return dir_ + "/request.pb"; }
  std::string accepted() const { return dir_ + "/accepted.pb"; }
  std::string done() const { return dir_ + "/done"; }

 private:
  std::string dir_;
};

class StoreLayout {
 public:
  explicit StoreLayout(std::string root) : root_(std::move(root)) {}

  const std::string& root() const { return root_; }
  // The directories every store has (Store::Open creates them).
  std::vector<std::string> Directories() const {
    return {blobs(), tmp(), bundles(), runs(), work()};
  }

  std::string blobs() const { return root_ + "/blobs"; }
  std::string BlobDir(const std::string& hash) const { return blobs() + "/" + hash.substr(0, 2); }
  std::string Blob(const std::string& hash) const { return BlobDir(hash) + "/" + hash; }
  std::string tmp() const { return root_ + "/tmp"; }
  // What the agent writes before it is complete: a blob, a bundle's tree. `unique` keeps apart
  // the files of its sessions.
  std::string TmpBlob(const std::string& hash, const std::string& unique) const {
    return tmp() + "/" + hash + "." + unique;
  }
  std::string TmpTree(const std::string& unique) const { return tmp() + "/tree." + unique; }
  std::string bundles() const { return root_ + "/bundles"; }
  std::string Bundle(const std::string& id) const { return bundles() + "/" + id; }
  std::string Manifest(const std::string& id) const { return Bundle(id) + "/manifest"; }
  std::string Tree(const std::string& id) const { return Bundle(id) + "/tree"; }
  std::string runs() const { return root_ + "/runs"; }
  RunLayout Run(const std::string& run_id) const { return RunLayout(runs() + "/" + run_id); }
  std::string work() const { return root_ + "/work"; }
  std::string Work(const std::string& run_id) const { return work() + "/" + run_id; }
  std::string pmu_budgets() const { return root_ + "/pmu-budgets"; }
  std::string tuned_system() const { return root_ + "/tuned-system"; }
  std::string log_file() const { return root_ + "/agentd.log"; }
  std::string pid_file() const { return root_ + "/agentd.pid"; }
  std::string lock_file() const { return root_ + "/agentd.lock"; }

 private:
  std::string root_;
};

}  // namespace ktune::agent
