// The agent's content-addressed store, under one root directory laid out as
// agent/store/layout.h says: blobs, bundles (a manifest and the tree built from it), the
// directories of runs and their working directories. A blob is written to the store's
// tmp/, fsynced, its hash verified, then renamed into blobs/; a blob that is present is
// never requested again.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "agent/store/layout.h"
#include "agent/store/run_files.h"
#include "common/fs.h"
#include "common/hash.h"
#include "common/manifest.h"
#include "common/results.h"
#include "common/status.h"

namespace ktune::agent {

class Store;

// Receives one blob in order; Finish() verifies and publishes it.
class BlobWriter {
 public:
  BlobWriter(BlobWriter&&) = default;
  BlobWriter& operator=(BlobWriter&&) = default;
  ~BlobWriter();  // an unfinished blob's temp file is removed

  const std::string& hash() const { return hash_; }
  uint64_t received_bytes() const { return received_; }

  // Appends bytes that belong at `offset`. An offset other than received_bytes() is a protocol
  // error; more bytes than the manifest's size is invalid data.
  Status Append(uint64_t offset, std::string_view raw);
  // Checks size and hash (a mismatch is invalid data), fsyncs and renames into the store.
  Status Finish();

 private:
  friend class Store;
  BlobWriter() = default;
  std::string hash_, tmp_path_, final_dir_, final_path_;
  uint64_t expected_size_ = 0, received_ = 0;
  ScopedFd fd_;
  Hasher hasher_;
  bool done_ = false;
};

class Store {
 public:
  // Creates the store's directories and locks it for this process: a store another agentd holds
  // is refused, naming that agent's pid (layout's agentd.lock). What an earlier agent left half
  // written (tmp/) is removed.
  static Result<Store> Open(const std::string& root);

  const std::string& root() const { return layout_.root(); }
  // Where its files are.
  const StoreLayout& layout() const { return layout_; }
  std::string BlobPath(const std::string& hash) const;
  bool HasBlob(const std::string& hash) const;
  Result<BlobWriter> BeginBlob(const std::string& hash, uint64_t size_bytes);

  // Records a normalized manifest; returns its bundle id.
  Result<std::string> SaveManifest(const Manifest& m);
  Result<Manifest> LoadManifest(const std::string& bundle_id) const;

  // Builds bundles/<id>/tree from the blobs (once; atomically) and returns its path. Every blob
  // of the manifest must be present.
  Result<std::string> Materialize(const std::string& bundle_id);

  // Bytes the bundles take: their blobs and materialized trees (runs are not counted: results
  // are never evicted).
  uint64_t BundleBytes() const;
  // Makes room for `incoming_bytes` more under `quota_bytes` by evicting the least recently used
  // bundles (manifest, tree, and blobs no other bundle holds) that are not in `in_use`; blobs in
  // `keep_blobs` (the incoming bundle's) stay. Fails, saying so, when that is not enough. The
  // ids of the bundles evicted go to `evicted` (when given), room made or not.
  Status MakeRoom(uint64_t incoming_bytes, uint64_t quota_bytes,
                  const std::set<std::string>& in_use, const std::set<std::string>& keep_blobs = {},
                  std::vector<std::string>* evicted = nullptr);
  // Marks a bundle used now (pushed or run): the last to be evicted.
  void Touch(const std::string& bundle_id);

  // runs/<run_id>/, created on demand.
  Result<RunLayout> RunDir(const std::string& run_id);
  // The files beside a run's journal (the directory need not exist).
  RunFiles RunFilesOf(const std::string& run_id) const {
    return RunFiles(run_id, layout_.Run(run_id));
  }
  // work/<run_id>: the run's working directory while it measures (agent/measure/sandbox.h).
  std::string WorkDir(const std::string& run_id) const { return layout_.Work(run_id); }

 private:
  Status BuildTree(const Manifest& m, const std::string& tmp) const;
  // The bundles by last use, oldest first.
  std::vector<std::string> BundlesByAge() const;
  // Removes the blobs no bundle's manifest holds, but those in `keep`.
  void RemoveUnheldBlobs(const std::set<std::string>& keep);

  Store(std::string root, ScopedFd lock) : layout_(std::move(root)), lock_(std::move(lock)) {}
  StoreLayout layout_;
  ScopedFd lock_;  // layout_.lock_file(), locked: the store is this agent's
};

}  // namespace ktune::agent
