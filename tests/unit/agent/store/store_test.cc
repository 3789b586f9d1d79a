#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <vector>

#include "agent/store/store.h"
#include "common/fs.h"
#include "tests/unit/temp_dir.h"

namespace ktune::agent {
namespace {
namespace fs = std::filesystem;

// A fresh store root per test; removed afterwards, read-only trees included.
struct TempStore {
  test::UnitTempDir dir{"ktune-store-test"};
  fs::path root = dir.path();
  fs::path own_tmp() const { return root / "tmp"; }
};

TEST_CASE("a blob becomes visible only once complete and verified") {
  TempStore t;
  auto store = Store::Open(t.root.string());
  REQUIRE(store.ok());
  const std::string hash = HashBytes("hello world");
  CHECK_FALSE(store->HasBlob(hash));
  {
    auto w = store->BeginBlob(hash, 11);
    REQUIRE(w.ok());
    REQUIRE(w->Append(0, "hello ").ok());
    CHECK_FALSE(store->HasBlob(hash));
    CHECK(w->Append(0, "world").code() == ErrorCode::kProtocol);  // wrong offset
    REQUIRE(w->Append(6, "world").ok());
    REQUIRE(w->Finish().ok());
  }
  CHECK(store->HasBlob(hash));
  CHECK(ReadFile(store->BlobPath(hash)).value() == "hello world");
  CHECK(fs::is_empty(t.own_tmp()));
}

TEST_CASE("wrong content, wrong size and abandoned uploads never become blobs") {
  TempStore t;
  auto store = Store::Open(t.root.string());
  REQUIRE(store.ok());
  const std::string hash = HashBytes("right");
  {
    auto w = store->BeginBlob(hash, 5);
    REQUIRE(w->Append(0, "wrong").ok());
    CHECK(w->Finish().message().find("arrived with hash") != std::string::npos);
  }
  {
    auto w = store->BeginBlob(hash, 5);
    CHECK_FALSE(w->Append(0, "too long").ok());
    REQUIRE(w->Append(0, "rig").ok());
    CHECK_FALSE(w->Finish().ok());
  }
  { auto abandoned = store->BeginBlob(hash, 5); }
  CHECK_FALSE(store->HasBlob(hash));
  CHECK(fs::is_empty(t.own_tmp()));
  CHECK_FALSE(store->BeginBlob("../../etc", 1).ok());
}

TEST_CASE("a bundle materializes into the seed's layout with its modes") {
  TempStore t;
  auto store = Store::Open(t.root.string());
  REQUIRE(store.ok());
  Manifest m;
  m.kernel = "k";
  for (auto [path, content, mode] : {std::tuple{"k/run/bin/a.elf", "ELF", 0755},
                                     std::tuple{"k/run/test_data/x.txt", "1 1\n", 0644}}) {
    const std::string hash = HashBytes(content);
    m.files.push_back({path, hash, std::string(content).size(), static_cast<uint32_t>(mode)});
  }
  REQUIRE(NormalizeManifest(m).ok());
  auto id = store->SaveManifest(m);
  REQUIRE(id.ok());
  CHECK(*id == BundleId(m));
  CHECK(store->Materialize(*id).status().code() == ErrorCode::kNotFound);  // blobs missing
  for (const auto& f : m.files) {
    auto w = store->BeginBlob(f.hash, f.size_bytes);
    REQUIRE(w->Append(0, f.hash == HashBytes("ELF") ? "ELF" : "1 1\n").ok());
    REQUIRE(w->Finish().ok());
  }
  auto tree = store->Materialize(*id);
  REQUIRE(tree.ok());
  CHECK(ReadFile(*tree + "/k/run/test_data/x.txt").value() == "1 1\n");
  const fs::perms elf = fs::status(*tree + "/k/run/bin/a.elf").permissions();
  CHECK((elf & fs::perms::owner_exec) != fs::perms::none);
  // Runs share the tree, so nothing in it is writable.
  CHECK((elf & fs::perms::owner_write) == fs::perms::none);
  CHECK((fs::status(*tree + "/k/run/test_data").permissions() & fs::perms::owner_write) ==
        fs::perms::none);
  CHECK(fs::is_empty(t.own_tmp()));
  CHECK(store->Materialize(*id).value() == *tree);  // once
  CHECK(store->LoadManifest(*id)->files.size() == 2);
  CHECK(store->LoadManifest(HashBytes("nope")).status().code() == ErrorCode::kNotFound);
}

TEST_CASE("what earlier agents left half written is removed as the store is opened") {
  TempStore t;
  fs::create_directories(t.root / "tmp/1/in-flight");
  REQUIRE(WriteFileAtomic((t.root / "tmp/abcdef.3").string(), "half a blob").ok());
  auto store = Store::Open(t.root.string());
  REQUIRE(store.ok());
  CHECK(fs::is_directory(t.own_tmp()));
  CHECK(fs::is_empty(t.own_tmp()));
}

// Found by the bad-input campaign (issue 33): agents sharing a store measured at the same time.
TEST_CASE("a store is one agent's: opened again while held, it is refused naming the holder") {
  TempStore t;
  {
    auto store = Store::Open(t.root.string());
    REQUIRE(store.ok());
    CHECK(ReadFile((t.root / "agentd.lock").string()).value() == std::to_string(::getpid()) + "\n");
    // Another open file description of the lock, as another agentd's, cannot take it.
    auto again = Store::Open(t.root.string());
    CHECK(again.status().code() == ErrorCode::kUnavailable);
    CHECK(again.status().message() == "store " + fs::absolute(t.root).lexically_normal().string() +
                                          " is in use by agentd pid " + std::to_string(::getpid()) +
                                          " (one agentd per store; --store names another)");
  }
  CHECK(Store::Open(t.root.string()).ok());  // released with the store
}

TEST_CASE("run directories are made only for safe run ids") {
  TempStore t;
  auto store = Store::Open(t.root.string());
  REQUIRE(store.ok());
  auto run = store->RunDir("r1");
  REQUIRE(run.ok());
  CHECK(run->dir() == store->root() + "/runs/r1");
  CHECK(fs::is_directory(run->dir()));
  CHECK(store->RunDir("../r1").status().code() == ErrorCode::kInvalidArgument);
  CHECK_FALSE(fs::exists(t.root / "r1"));
}

// Pushes a bundle of `files` (path -> content) through the store's own API, materializes it and
// sets its manifest's mtime to `used_at` (seconds since the epoch).
std::string AddBundle(Store& store, const std::string& kernel,
                      const std::map<std::string, std::string>& files, time_t used_at) {
  Manifest m;
  m.kernel = kernel;
  for (const auto& [path, content] : files) {
    m.files.push_back({kernel + "/run/" + path, HashBytes(content), content.size(), 0644});
    if (store.HasBlob(HashBytes(content))) continue;
    auto w = store.BeginBlob(HashBytes(content), content.size());
    REQUIRE(w.ok());
    REQUIRE(w->Append(0, content).ok());
    REQUIRE(w->Finish().ok());
  }
  REQUIRE(NormalizeManifest(m).ok());
  auto id = store.SaveManifest(m);
  REQUIRE(id.ok());
  REQUIRE(store.Materialize(*id).ok());
  const timespec times[2] = {{used_at, 0}, {used_at, 0}};
  const std::string manifest = store.root() + "/bundles/" + *id + "/manifest";
  REQUIRE(::utimensat(AT_FDCWD, manifest.c_str(), times, 0) == 0);
  return *id;
}

// Three bundles used in the order a, b, c; a and b share one blob.
struct ThreeBundles {
  TempStore t;
  std::optional<Store> store;
  std::string a, b, c;
  const std::string shared = std::string(4000, 's'), only_a = std::string(3000, 'a'),
                    only_b = std::string(3000, 'b'), only_c = std::string(3000, 'c');
  ThreeBundles() {
    auto s = Store::Open(t.root.string());
    REQUIRE(s.ok());
    store.emplace(std::move(s).value());
    a = AddBundle(*store, "ka", {{"shared", shared}, {"a", only_a}}, 1000);
    b = AddBundle(*store, "kb", {{"shared", shared}, {"b", only_b}}, 2000);
    c = AddBundle(*store, "kc", {{"c", only_c}}, 3000);
  }
  bool Has(const std::string& id) const { return fs::exists(t.root / "bundles" / id); }
  bool HasBlob(const std::string& content) const { return store->HasBlob(HashBytes(content)); }
};

uint64_t FileBytes(const fs::path& p) {
  return fs::file_size(p);
}

TEST_CASE("bundle bytes count the blobs, the manifests and the materialized trees") {
  TempStore t;
  auto store = Store::Open(t.root.string());
  REQUIRE(store.ok());
  CHECK(store->BundleBytes() == 0);
  const std::string id = AddBundle(*store, "k", {{"x", "12345"}, {"y", "1234567"}}, 1000);
  const uint64_t manifest = FileBytes(t.root / "bundles" / id / "manifest");
  CHECK(store->BundleBytes() == (5 + 7) * 2 + manifest);  // blob and tree copy of each file
  REQUIRE(store->RunDir("r1").ok());
  REQUIRE(WriteFileAtomic(store->RunDir("r1").value().results(), "rows").ok());
  CHECK(store->BundleBytes() == (5 + 7) * 2 + manifest);  // results are never evicted
}

TEST_CASE("room is made by evicting the least recently used bundle with its own blobs") {
  ThreeBundles s;
  const uint64_t used = s.store->BundleBytes();
  REQUIRE(s.store->MakeRoom(0, used, {}).ok());  // it fits: nothing goes
  CHECK((s.Has(s.a) && s.Has(s.b) && s.Has(s.c)));
  REQUIRE(s.store->MakeRoom(1, used, {}).ok());
  CHECK_FALSE(s.Has(s.a));
  CHECK_FALSE(s.HasBlob(s.only_a));
  CHECK(s.HasBlob(s.shared));  // b holds it still
  CHECK((s.Has(s.b) && s.Has(s.c)));
  CHECK((s.HasBlob(s.only_b) && s.HasBlob(s.only_c)));
  CHECK(s.store->BundleBytes() + 1 <= used);
  CHECK(s.store->LoadManifest(s.a).status().code() == ErrorCode::kNotFound);
  CHECK(s.store->Materialize(s.b).ok());
}

TEST_CASE("a bundle in use is never evicted; a touched one goes last") {
  SUBCASE("in use") {
    ThreeBundles s;
    REQUIRE(s.store->MakeRoom(1, s.store->BundleBytes(), {s.a}).ok());
    CHECK(s.Has(s.a));
    CHECK_FALSE(s.Has(s.b));
    CHECK_FALSE(s.HasBlob(s.only_b));
    CHECK(s.HasBlob(s.shared));  // a holds it
    CHECK(s.Has(s.c));
  }
  SUBCASE("touched") {
    ThreeBundles s;
    s.store->Touch(s.a);  // now: after b's and c's uses
    REQUIRE(s.store->MakeRoom(1, s.store->BundleBytes(), {}).ok());
    CHECK(s.Has(s.a));
    CHECK_FALSE(s.Has(s.b));
    CHECK(s.Has(s.c));
  }
}

TEST_CASE("a quota that bundles in use fill is a ResourceExhausted error naming the flag") {
  ThreeBundles s;
  const uint64_t c_bytes = s.only_c.size() * 2 + FileBytes(s.t.root / "bundles" / s.c / "manifest");
  const Status st = s.store->MakeRoom(c_bytes, c_bytes, {s.c});
  CHECK(st.code() == ErrorCode::kResourceExhausted);
  CHECK(st.message().find("--store-quota-mb") != std::string::npos);
  // Everything not in use went trying; what is in use stayed.
  CHECK_FALSE(s.Has(s.a));
  CHECK_FALSE(s.Has(s.b));
  CHECK_FALSE(s.HasBlob(s.shared));
  CHECK(s.Has(s.c));
  CHECK(s.HasBlob(s.only_c));
  CHECK(s.store->BundleBytes() == c_bytes);
  // With room for what comes, the same call succeeds.
  CHECK(s.store->MakeRoom(c_bytes, 2 * c_bytes, {s.c}).ok());
}

}  // namespace
}  // namespace ktune::agent
