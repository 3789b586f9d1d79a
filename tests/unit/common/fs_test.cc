// common/fs.h: files opened for appending lines, and rm -rf of the agent's read-only trees.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "common/fs.h"
#include "tests/unit/temp_dir.h"

namespace ktune {
namespace {
namespace fs = std::filesystem;

struct TempDir : test::UnitTempDir {
  TempDir() : UnitTempDir("ktune-fs-test") {}
};

mode_t ModeOf(const std::string& path) {
  struct stat st;
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

TEST_CASE("a lines file opened for append is created, or keeps its whole lines") {
  TempDir t;
  const std::string path = t / "lines";
  {
    auto f = OpenLinesForAppend(path);
    REQUIRE(f.ok());
    CHECK(f->text.empty());
    CHECK(f->dropped_bytes == 0);
    REQUIRE(WriteAll(f->fd.get(), "a\nb\n", path).ok());
  }
  auto f = OpenLinesForAppend(path);
  REQUIRE(f.ok());
  CHECK(f->text == "a\nb\n");
  CHECK(f->dropped_bytes == 0);
  REQUIRE(WriteAll(f->fd.get(), "c\n", path).ok());
  CHECK(ReadFile(path).value() == "a\nb\nc\n");
}

TEST_CASE("a torn last line is cut from the file, so the next line starts on its own") {
  TempDir t;
  const std::string path = t / "lines";
  REQUIRE(WriteFileAtomic(path, "a\nb\npart").ok());
  auto f = OpenLinesForAppend(path);
  REQUIRE(f.ok());
  CHECK(f->text == "a\nb\n");
  CHECK(f->dropped_bytes == 4);
  CHECK(ReadFile(path).value() == "a\nb\n");  // cut on disk, not only in `text`
  REQUIRE(WriteAll(f->fd.get(), "c\n", path).ok());
  CHECK(ReadFile(path).value() == "a\nb\nc\n");

  // No whole line at all: the file is emptied.
  REQUIRE(WriteFileAtomic(path, "xyz").ok());
  auto g = OpenLinesForAppend(path);
  REQUIRE(g.ok());
  CHECK(g->text.empty());
  CHECK(g->dropped_bytes == 3);
  CHECK(ReadFile(path).value().empty());
}

TEST_CASE("RemoveTree removes read-only directories and files") {
  TempDir t;
  const std::string top = t / "tree";
  fs::create_directories(top + "/a/b");
  REQUIRE(WriteFileAtomic(top + "/a/b/f", "x", 0444).ok());
  for (const std::string& d : {top + "/a/b", top + "/a", top}) fs::permissions(d, fs::perms(0555));
  RemoveTree(top);
  CHECK_FALSE(fs::exists(top));
  RemoveTree(top);  // gone already: nothing to do, no error
  CHECK_FALSE(fs::exists(top));
}

TEST_CASE("RemoveTree removes links, never what they point to, nor changes its mode") {
  TempDir t;
  const std::string target = t / "target";
  fs::create_directories(target);
  REQUIRE(WriteFileAtomic(target + "/keep.txt", "kept", 0444).ok());
  fs::permissions(target, fs::perms(0555));
  const std::string top = t / "tree";
  fs::create_directories(top);
  fs::create_directory_symlink(target, top + "/dir-link");
  fs::create_symlink(target + "/keep.txt", top + "/file-link");
  RemoveTree(top);
  CHECK_FALSE(fs::exists(fs::symlink_status(top)));
  CHECK(ReadFile(target + "/keep.txt").value() == "kept");
  // The agent's read-only bundle trees are reached through such links (agent/measure/sandbox.h):
  // they stay read-only.
  CHECK(ModeOf(target) == 0555);
  CHECK(ModeOf(target + "/keep.txt") == 0444);
}

}  // namespace
}  // namespace ktune
