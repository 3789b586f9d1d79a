// Where everything lives under agentd's store directory; the one place its paths are built:
//   blobs/<2 hex>/<hash>      file contents, named by their hash, read-only
//   tmp/<pid>/                blobs being received by agent <pid>; never visible under blobs/
//                             until verified (each agent sharing the store has its own)
//   bundles/<id>/manifest     a bundle's manifest (common/manifest.h canonical text); its mtime
//                             is when the bundle was last pushed or run (eviction is LRU)
//   bundles/<id>/tree/        the bundle materialized: the seed's layout, <kernel>/run/...,
//                             fsynced before it appears, read-only (runs share it)
//   runs/<run_id>/            the run's journal, results.csv and profiles.frames
//                             (agent/measure/journal.h), and beside it request.pb, accepted.pb
//                             and done (agent/store/run_files.h)
//   work/<run_id>/            the kernels' working directory while the run measures
//                             (agent/measure/sandbox.h)
//   pmu-budgets               counter budgets per CPU model (agent/measure/passes.h)
//   agentd.log, agentd.pid    a daemon's log and process id (agent/main.cc)
#pragma once

#include <string>
#include <vector>

namespace ktune::agent {

class StoreLayout {
 public:
  explicit StoreLayout(std::string root) : root_(std::move(root)) {}

  const std::string& root() const { return root_; }
  // The directories every store has (Store::Open creates them).
  std::vector<std::string> Directories() const {
    return {blobs(), tmp(), bundles(), runs(), work()};
  }

  std::string blobs() const { return root_ + "/blobs"; }
  std::string Blob(const std::string& hash) const {
    return blobs() + "/" + hash.substr(0, 2) + "/" + hash;
  }
  std::string tmp() const { return root_ + "/tmp"; }
  std::string AgentTmp(long pid) const { return tmp() + "/" + std::to_string(pid); }
  std::string bundles() const { return root_ + "/bundles"; }
  std::string Bundle(const std::string& id) const { return bundles() + "/" + id; }
  std::string Manifest(const std::string& id) const { return Bundle(id) + "/manifest"; }
  std::string Tree(const std::string& id) const { return Bundle(id) + "/tree"; }
  std::string runs() const { return root_ + "/runs"; }
  std::string Run(const std::string& run_id) const { return runs() + "/" + run_id; }
  std::string work() const { return root_ + "/work"; }
  std::string Work(const std::string& run_id) const { return work() + "/" + run_id; }
  std::string pmu_budgets() const { return root_ + "/pmu-budgets"; }
  std::string log_file() const { return root_ + "/agentd.log"; }
  std::string pid_file() const { return root_ + "/agentd.pid"; }

 private:
  std::string root_;
};

}  // namespace ktune::agent
