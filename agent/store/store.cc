#include "agent/store/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>

#include "common/strings.h"

namespace ktune::agent {
namespace fs = std::filesystem;

namespace {

std::atomic<uint64_t> g_tmp_counter{0};

std::string UniqueSuffix() {
  return std::to_string(g_tmp_counter.fetch_add(1));
}

}  // namespace

BlobWriter::~BlobWriter() {
  if (!done_ && !tmp_path_.empty()) ::unlink(tmp_path_.c_str());
}

Status BlobWriter::Append(uint64_t offset, std::string_view raw) {
  if (offset != received_) {
    return ProtocolError("blob " + hash_ + ": chunk at offset " + std::to_string(offset) +
                         ", expected " + std::to_string(received_));
  }
  if (received_ + raw.size() > expected_size_) {
    return InvalidArgument("blob " + hash_ + " is larger than its manifest says");
  }
  KT_RETURN_IF_ERROR(WriteAll(fd_.get(), raw, tmp_path_));
  hasher_.Update(raw);
  received_ += raw.size();
  return Status::Ok();
}

Status BlobWriter::Finish() {
  if (received_ != expected_size_) {
    return InvalidArgument("blob " + hash_ + " ended at " + std::to_string(received_) + " of " +
                           std::to_string(expected_size_) + " bytes");
  }
  const std::string actual = hasher_.HexDigest();
  if (actual != hash_) return InvalidArgument("blob " + hash_ + " arrived with hash " + actual);
  if (::fchmod(fd_.get(), 0444) != 0) return ErrnoError("chmod " + tmp_path_, errno);
  if (::fsync(fd_.get()) != 0) return ErrnoError("fsync " + tmp_path_, errno);
  fd_.Reset();
  KT_RETURN_IF_ERROR(MakeDirs(final_dir_));
  if (::rename(tmp_path_.c_str(), final_path_.c_str()) != 0) {
    return ErrnoError("rename " + tmp_path_, errno);
  }
  done_ = true;
  return FsyncDirectory(final_dir_);
}

Result<Store> Store::Open(const std::string& root) {
  for (const std::string& dir : StoreLayout(root).Directories()) {
    KT_RETURN_IF_ERROR(MakeDirs(dir));
  }
  const StoreLayout layout(fs::absolute(root).lexically_normal().string());
  // One agent per store, for the agent's life: two would measure at once and evict each other's
  // bundles. The lock goes with the process (close-on-exec: no kernel inherits it); the file
  // names its holder.
  KT_ASSIGN_OR_RETURN(ScopedFd lock, OpenFile(layout.lock_file(), O_RDWR | O_CREAT));
  const std::string pid = std::to_string(::getpid());
  if (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    auto holder = ReadFilePrefix(layout.lock_file(), 32);
    return Unavailable("store " + layout.root() + " is in use by agentd pid " +
                       std::string(Trim(holder.ok() ? *holder : "?")) +
                       " (one agentd per store; --store names another)");
  }
  if (::ftruncate(lock.get(), 0) != 0) return ErrnoError("truncate " + layout.lock_file(), errno);
  KT_RETURN_IF_ERROR(WriteAll(lock.get(), pid + "\n", layout.lock_file()));
  // What an earlier agent was writing when it stopped is never completed.
  RemoveTree(layout.tmp());
  KT_RETURN_IF_ERROR(MakeDirs(layout.tmp()));
  return Store(layout.root(), std::move(lock));
}

std::string Store::BlobPath(const std::string& hash) const {
  return layout_.Blob(hash);
}

bool Store::HasBlob(const std::string& hash) const {
  struct stat st;
  return IsHexDigest(hash) && ::stat(BlobPath(hash).c_str(), &st) == 0;
}

Result<BlobWriter> Store::BeginBlob(const std::string& hash, uint64_t size_bytes) {
  if (!IsHexDigest(hash)) return ProtocolError("malformed blob hash");
  BlobWriter w;
  w.hash_ = hash;
  w.expected_size_ = size_bytes;
  w.final_dir_ = layout_.BlobDir(hash);
  w.final_path_ = BlobPath(hash);
  w.tmp_path_ = layout_.TmpBlob(hash, UniqueSuffix());
  KT_ASSIGN_OR_RETURN(w.fd_, OpenFile(w.tmp_path_, O_WRONLY | O_CREAT | O_EXCL, 0600));
  return w;
}

Result<std::string> Store::SaveManifest(const Manifest& m) {
  const std::string id = BundleId(m);
  KT_RETURN_IF_ERROR(MakeDirs(layout_.Bundle(id)));
  const std::string manifest = layout_.Manifest(id);
  if (!fs::exists(manifest)) KT_RETURN_IF_ERROR(WriteFileAtomic(manifest, ManifestToText(m)));
  return id;
}

Result<Manifest> Store::LoadManifest(const std::string& bundle_id) const {
  if (!IsHexDigest(bundle_id)) return InvalidArgument("malformed bundle id");
  auto text = ReadFile(layout_.Manifest(bundle_id));
  if (!text.ok()) return NotFound("bundle " + bundle_id.substr(0, 12) + " is not on this agent");
  KT_ASSIGN_OR_RETURN(Manifest m, ManifestFromText(*text));
  if (BundleId(m) != bundle_id) return IoError("bundle " + bundle_id + ": manifest is corrupt");
  return m;
}

Result<std::string> Store::Materialize(const std::string& bundle_id) {
  KT_ASSIGN_OR_RETURN(Manifest m, LoadManifest(bundle_id));
  const std::string dir = layout_.Bundle(bundle_id);
  const std::string tree = layout_.Tree(bundle_id);
  if (fs::is_directory(tree)) return tree;
  for (const FileEntry& f : m.files) {
    if (!HasBlob(f.hash)) return NotFound("blob for " + f.path + " is missing");
  }
  const std::string tmp = layout_.TmpTree(UniqueSuffix());
  Status s = BuildTree(m, tmp);
  if (s.ok() && ::rename(tmp.c_str(), tree.c_str()) != 0) {
    s = ErrnoError("rename " + tmp, errno);
    if (fs::is_directory(tree)) s = Status::Ok();  // another session built it meanwhile
  }
  if (!s.ok() || fs::exists(tmp)) RemoveTree(tmp);
  KT_RETURN_IF_ERROR(s);
  std::error_code ec;
  fs::permissions(tree, fs::perms(0555), ec);
  if (ec) return IoError("chmod " + tree + ": " + ec.message());
  KT_RETURN_IF_ERROR(FsyncDirectory(dir));
  return tree;
}

Status Store::BuildTree(const Manifest& m, const std::string& tmp) const {
  std::error_code ec;
  std::vector<fs::path> dirs = {tmp};
  for (const FileEntry& f : m.files) {
    const fs::path dst = fs::path(tmp) / f.path;
    for (fs::path d = dst.parent_path(); d != fs::path(tmp) && !fs::exists(d, ec);
         d = d.parent_path()) {
      dirs.push_back(d);
    }
    fs::create_directories(dst.parent_path(), ec);
    if (!ec) fs::copy_file(BlobPath(f.hash), dst, ec);
    if (ec) return IoError("materialize " + f.path + ": " + ec.message());
    // Runs share the tree: nobody may write to it.
    KT_ASSIGN_OR_RETURN(ScopedFd fd, OpenFile(dst.string(), O_RDONLY));
    if (::fchmod(fd.get(), f.mode & 0555) != 0) return ErrnoError("chmod " + f.path, errno);
    if (::fsync(fd.get()) != 0) return ErrnoError("fsync " + f.path, errno);
  }
  // Deepest first, so a directory is synced after what it holds, and read-only after that. The
  // top stays writable until it is renamed into place: moving a directory to another parent
  // needs write permission on it.
  std::sort(dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) {
    return a.string().size() > b.string().size();
  });
  for (const fs::path& d : dirs) {
    KT_RETURN_IF_ERROR(FsyncDirectory(d.string()));
    if (d == fs::path(tmp)) continue;
    fs::permissions(d, fs::perms(0555), ec);
    if (ec) return IoError("chmod " + d.string() + ": " + ec.message());
  }
  return Status::Ok();
}

namespace {

uint64_t TreeBytes(const std::string& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

}  // namespace

uint64_t Store::BundleBytes() const {
  return TreeBytes(layout_.blobs()) + TreeBytes(layout_.bundles());
}

void Store::Touch(const std::string& bundle_id) {
  ::utimensat(AT_FDCWD, layout_.Manifest(bundle_id).c_str(), nullptr, 0);
}

Status Store::MakeRoom(uint64_t incoming_bytes, uint64_t quota_bytes,
                       const std::set<std::string>& in_use, const std::set<std::string>& keep_blobs,
                       std::vector<std::string>* evicted) {
  uint64_t used = BundleBytes();
  if (used + incoming_bytes <= quota_bytes) return Status::Ok();
  for (const std::string& id : BundlesByAge()) {
    if (used + incoming_bytes <= quota_bytes) break;
    if (in_use.count(id)) continue;
    RemoveTree(layout_.Bundle(id));
    if (evicted) evicted->push_back(id);
    RemoveUnheldBlobs(keep_blobs);  // the blobs no remaining bundle holds go with it
    used = BundleBytes();
  }
  if (used + incoming_bytes <= quota_bytes) return Status::Ok();
  return ResourceExhausted("the agent's store quota (" + FormatMiB(quota_bytes) + ") cannot take " +
                           FormatMiB(incoming_bytes) + " more: " + FormatMiB(used) +
                           " are bundles in use or just pushed (agentd --store-quota-mb)");
}

std::vector<std::string> Store::BundlesByAge() const {
  std::vector<std::pair<fs::file_time_type, std::string>> bundles;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(layout_.bundles(), ec)) {
    const std::string id = e.path().filename().string();
    auto when = fs::last_write_time(layout_.Manifest(id), ec);
    if (!ec) bundles.emplace_back(when, id);
  }
  std::sort(bundles.begin(), bundles.end());
  std::vector<std::string> ids;
  for (auto& [when, id] : bundles) ids.push_back(std::move(id));
  return ids;
}

void Store::RemoveUnheldBlobs(const std::set<std::string>& keep) {
  std::set<std::string> held = keep;
  std::error_code ec;
  for (const auto& b : fs::directory_iterator(layout_.bundles(), ec)) {
    if (auto text = ReadFile(layout_.Manifest(b.path().filename().string())); text.ok()) {
      if (auto m = ManifestFromText(*text); m.ok()) {
        for (const FileEntry& f : m->files) held.insert(f.hash);
      }
    }
  }
  for (auto it = fs::recursive_directory_iterator(layout_.blobs(), ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec) && !held.count(it->path().filename().string())) {
      fs::remove(it->path(), ec);
    }
  }
}

Result<RunLayout> Store::RunDir(const std::string& run_id) {
  KT_RETURN_IF_ERROR(ValidateRunId(run_id));
  RunLayout run = layout_.Run(run_id);
  KT_RETURN_IF_ERROR(MakeDirs(run.dir()));
  return run;
}

}  // namespace ktune::agent
