// The agent's content-addressed store, under one root directory:
//   blobs/<2 hex>/<hash>      file contents, named by their hash, read-only
//   tmp/<pid>/                blobs being received by agent <pid>; never visible under blobs/
//                             until verified (each agent sharing the store has its own)
//   bundles/<id>/manifest     a bundle's manifest (common/manifest.h canonical text); its mtime
//                             is when the bundle was last pushed or run (eviction is LRU)
//   bundles/<id>/tree/        the bundle materialized: the seed's layout, <kernel>/run/...,
//                             fsynced before it appears, read-only (runs share it)
//   runs/<run_id>/results.csv every result row, appended and fsynced before it is sent
//   work/<run_id>/            the kernels' working directory while the run measures
// A blob is written to tmp/, fsynced, its hash verified, then renamed into blobs/; a blob that
// is present is never requested again.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

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
  std::string hash_, tmp_path_, final_path_;
  uint64_t expected_size_ = 0, received_ = 0;
  ScopedFd fd_;
  Hasher hasher_;
  bool done_ = false;
};

class Store {
 public:
  static Result<Store> Open(const std::string& root);

  const std::string& root() const { return root_; }
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
  Result<std::string> RunDir(const std::string& run_id);
  // work/<run_id>: the run's working directory while it measures (agent/measure/sandbox.h).
  std::string WorkDir(const std::string& run_id) const { return root_ + "/work/" + run_id; }

 private:
  Status BuildTree(const Manifest& m, const std::string& tmp) const;

  Store(std::string root, std::string tmp) : root_(std::move(root)), tmp_(std::move(tmp)) {}
  std::string root_;
  std::string tmp_;  // this agent's temp directory
};

}  // namespace ktune::agent
