#include <doctest/doctest.h>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include "agent/store.h"
#include "common/fs.h"

namespace ktune {
namespace {
namespace fs = std::filesystem;

// A fresh store root per test; removed afterwards, read-only trees included.
struct TempStore {
  fs::path root;
  TempStore() {
    std::string tmpl = (fs::temp_directory_path() / "ktune-store-test-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    root = tmpl;
  }
  ~TempStore() {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::remove_all(root, ec);
  }
  fs::path own_tmp() const { return root / "tmp" / std::to_string(::getpid()); }
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

TEST_CASE("temp directories of dead agents are removed; those of live agents are kept") {
  TempStore t;
  fs::create_directories(t.root / "tmp/1/in-flight");           // pid 1 always runs
  fs::create_directories(t.root / "tmp/2147483646/left-over");  // no such process
  auto store = Store::Open(t.root.string());
  REQUIRE(store.ok());
  CHECK(fs::exists(t.root / "tmp/1/in-flight"));
  CHECK_FALSE(fs::exists(t.root / "tmp/2147483646"));
  CHECK(fs::is_directory(t.own_tmp()));
}

}  // namespace
}  // namespace ktune
