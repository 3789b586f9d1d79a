// A fresh directory for one unit test, removed with everything in it when the test ends (also
// when an assertion ends it early), read-only trees included (common/fs.h RemoveTree).
#pragma once

#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "common/fs.h"

namespace ktune::test {

class UnitTempDir {
 public:
  // `mode` 0711 lets other users pass through (kernels run as nobody must reach what is inside).
  explicit UnitTempDir(const std::string& prefix = "ktune-unit", mode_t mode = 0700) {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
    if (mode != 0700) std::filesystem::permissions(path_, std::filesystem::perms(mode));
  }
  ~UnitTempDir() { RemoveTree(path_.string()); }
  UnitTempDir(const UnitTempDir&) = delete;
  UnitTempDir& operator=(const UnitTempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace ktune::test
