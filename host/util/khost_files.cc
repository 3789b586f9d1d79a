#include "host/util/khost_files.h"

#include <filesystem>

namespace ktune::host {

namespace fs = std::filesystem;

std::string KhostDir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "." : self.parent_path().string();
}

std::string ShippedDir() {
  std::error_code ec;
  const fs::path installed = fs::path(KhostDir()).parent_path() / "share" / "ktune";
  if (fs::is_directory(installed / "toolchains", ec)) return installed.string();
  return KTUNE_SOURCE_DIR;
}

}  // namespace ktune::host
