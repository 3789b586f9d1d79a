#include "host/results/test_data_files.h"

#include <algorithm>
#include <filesystem>

#include "common/strings.h"

namespace ktune::host {
namespace fs = std::filesystem;

namespace {

// A run of ASCII digits without a sign or leading zero (but "0" itself).
std::optional<uint64_t> Digits(std::string_view s) {
  if (s.empty() || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  if (!std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  Result<uint64_t> v = ParseUint64(s);
  return v.ok() ? std::optional<uint64_t>(*v) : std::nullopt;
}

}  // namespace

std::string TestDataFileName(int64_t rows, int64_t cols, size_t index, bool binary) {
  return "matrix_" + std::to_string(rows) + "x" + std::to_string(cols) + "_" +
         std::to_string(index) + (binary ? ".bin" : ".txt");
}

std::optional<TestDataFile> ParseTestDataFileName(std::string_view name) {
  constexpr std::string_view kPrefix = "matrix_";
  if (!name.starts_with(kPrefix) || name.size() < kPrefix.size() + 4) return std::nullopt;
  TestDataFile f;
  const std::string_view ext = name.substr(name.size() - 4);
  if (ext != ".txt" && ext != ".bin") return std::nullopt;
  f.binary = ext == ".bin";
  std::string_view rest = name.substr(kPrefix.size(), name.size() - kPrefix.size() - 4);
  const size_t x = rest.find('x'), underscore = rest.find('_');
  if (x == std::string_view::npos || underscore == std::string_view::npos || underscore < x) {
    return std::nullopt;
  }
  const auto rows = Digits(rest.substr(0, x));
  const auto cols = Digits(rest.substr(x + 1, underscore - x - 1));
  const auto index = Digits(rest.substr(underscore + 1));
  if (!rows || !cols || !index || *rows > INT64_MAX || *cols > INT64_MAX) return std::nullopt;
  f.rows = static_cast<int64_t>(*rows);
  f.cols = static_cast<int64_t>(*cols);
  f.index = static_cast<size_t>(*index);
  return f;
}

Result<std::vector<std::string>> OldNumberedTestData(const std::string& test_data_dir) {
  std::vector<std::string> old;
  std::error_code ec;
  if (!fs::is_directory(test_data_dir, ec)) return old;
  for (auto it = fs::directory_iterator(test_data_dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const auto parsed = ParseTestDataFileName(name);
    if (parsed && parsed->index == 0) old.push_back(name);
  }
  if (ec) return IoError("listing " + test_data_dir + ": " + ec.message());
  std::sort(old.begin(), old.end());
  return old;
}

std::string OldNumberingMessage(const std::string& kernel, const std::string& first, size_t count) {
  return kernel + "/run/test_data holds test data numbered from 0 (" + first +
         (count > 1 ? " and " + std::to_string(count - 1) + " more" : "") +
         "), as earlier versions of khost tune wrote it; tensors are numbered from 1 now, as the "
         "seed numbers them, and variants built for either numbering read the other wrong: rerun "
         "`khost tune " +
         kernel + "` to rewrite the test data and rebuild";
}

}  // namespace ktune::host
