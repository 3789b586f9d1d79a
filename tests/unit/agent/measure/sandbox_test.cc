// agent/measure/sandbox.h: the user kernels run as, whether it can reach the store, and each run's
// working directory. Nothing here runs a process.
#include <doctest/doctest.h>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "agent/measure/sandbox.h"
#include "common/fs.h"
#include "tests/unit/temp_dir.h"

namespace ktune::agent {
namespace {
namespace fs = std::filesystem;

// Mode 0711, so others may pass through it.
struct TempDir : test::UnitTempDir {
  TempDir() : UnitTempDir("ktune-sandbox-test", 0711) {}
};

void MakeDir(const std::string& path, int mode) {
  fs::create_directory(path);
  fs::permissions(path, fs::perms(mode));
}

struct stat StatOf(const std::string& path) {
  struct stat st;
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st;
}

constexpr WorkloadUser kStranger{54321, 54321};  // no passwd entry, owns nothing

TEST_CASE("the kernels' user: a name from passwd, or a bare uid; never root") {
  const passwd* nobody = ::getpwnam("nobody");
  if (nobody && nobody->pw_uid == 65534) {
    auto u = LookupUser("nobody");
    REQUIRE(u.ok());
    CHECK(u->uid == 65534);
    CHECK(u->gid == nobody->pw_gid);
  } else {
    MESSAGE("skipped the nobody lookup: this machine's passwd has no nobody with uid 65534");
  }
  for (const char* root : {"root", "0"}) {
    CAPTURE(root);
    auto r = LookupUser(root);
    CHECK(r.status().code() == ErrorCode::kInvalidArgument);
    CHECK(r.status().message().find("root") != std::string::npos);
  }
  CHECK(LookupUser("-5").status().code() == ErrorCode::kInvalidArgument);
  REQUIRE(::getpwnam("54321") == nullptr);
  auto bare = LookupUser("54321");
  REQUIRE(bare.ok());
  CHECK(bare->uid == 54321);
  CHECK(bare->gid == 54321);
  auto unknown = LookupUser("ktune-no-such-user");
  CHECK(unknown.status().code() == ErrorCode::kNotFound);
  CHECK(unknown.status().message().find("ktune-no-such-user") != std::string::npos);
}

TEST_CASE("a directory the kernels' user cannot search is named, with its mode") {
  TempDir t;
  const std::string closed = t / "closed";
  MakeDir(closed, 0700);  // owned by whoever runs the tests (root, as the agent), not 54321
  MakeDir(closed + "/inner", 0755);
  for (const std::string& path : {closed, closed + "/inner"}) {
    CAPTURE(path);
    const Status s = CheckReachable(kStranger, path);
    CHECK_FALSE(s.ok());
    CHECK(s.message().find("cannot reach " + closed + " (mode 0700)") != std::string::npos);
    CHECK(s.message().find("uid 54321") != std::string::npos);
  }
}

TEST_CASE("directories others may search (0711) lead to one they may read (0755)") {
  if (!CheckReachable(kStranger, fs::temp_directory_path().string()).ok()) {
    MESSAGE("skipped: others cannot reach the temp directory " << fs::temp_directory_path());
    return;
  }
  TempDir t;  // 0711
  MakeDir(t / "pass", 0711);
  MakeDir(t / "pass/store", 0755);
  CHECK(CheckReachable(kStranger, t / "pass/store").ok());
  CHECK(CheckReachable(kStranger, t / "pass/./store/").ok());
  // The directory's owner needs only the owner's bits.
  MakeDir(t / "own", 0700);
  if (::geteuid() == 0) {
    REQUIRE(::chown((t / "own").c_str(), kStranger.uid, kStranger.gid) == 0);
    CHECK(CheckReachable(kStranger, t / "own").ok());
  }
  CHECK_FALSE(CheckReachable(kStranger, t / "missing").ok());
}

// A read-only tree as the store materializes it: <kernel>/run/bin/a.elf and a top-level file.
void MakeTree(const std::string& tree) {
  fs::create_directories(tree + "/k/run/bin");
  REQUIRE(WriteFileAtomic(tree + "/k/run/bin/a.elf", "ELF", 0555).ok());
  REQUIRE(WriteFileAtomic(tree + "/top.txt", "top", 0444).ok());
  for (const char* d : {"/k/run/bin", "/k/run", "/k"}) fs::permissions(tree + d, fs::perms(0555));
}

TEST_CASE("a run's working directory links to the tree's entries and is made afresh") {
  TempDir t;
  const std::string tree = t / "tree", work = t / "work";
  MakeTree(tree);
  REQUIRE(MakeWorkDir(work, tree, std::nullopt).ok());
  CHECK((StatOf(work).st_mode & 07777) == 0700);
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(work)) {
    CHECK(e.is_symlink());
    CHECK(fs::read_symlink(e.path()) == fs::path(tree) / e.path().filename());
    ++entries;
  }
  CHECK(entries == 2);
  CHECK(ReadFile(work + "/k/run/bin/a.elf").value() == "ELF");  // the seed's relative paths
  CHECK(ReadFile(work + "/top.txt").value() == "top");

  // What a run left behind (even read-only) is gone from the next one's directory.
  MakeDir(work + "/out", 0755);
  REQUIRE(WriteFileAtomic(work + "/out/old.txt", "old").ok());
  fs::permissions(work + "/out", fs::perms(0555));
  REQUIRE(MakeWorkDir(work, tree, std::nullopt).ok());
  CHECK_FALSE(fs::exists(work + "/out"));
  CHECK(fs::is_symlink(work + "/k"));
  CHECK(ReadFile(work + "/k/run/bin/a.elf").value() == "ELF");
  // Runs share the tree: removing the old directory left it read-only.
  CHECK((StatOf(tree + "/k").st_mode & 07777) == 0555);
  CHECK(ReadFile(tree + "/top.txt").value() == "top");
}

TEST_CASE("as root, the working directory belongs to the kernels' user") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: chown to another user needs root");
    return;
  }
  TempDir t;
  const std::string tree = t / "tree", work = t / "work";
  MakeTree(tree);
  REQUIRE(MakeWorkDir(work, tree, kStranger).ok());
  const struct stat st = StatOf(work);
  CHECK(st.st_uid == kStranger.uid);
  CHECK(st.st_gid == kStranger.gid);
  CHECK((st.st_mode & 07777) == 0700);
  CHECK(fs::is_symlink(work + "/k"));
}

}  // namespace
}  // namespace ktune::agent
