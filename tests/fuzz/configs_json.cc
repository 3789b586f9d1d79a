// Fuzzes ParseConfigsJson, which reads a kernel's configs.json (written by the seed's scripts or
// by hand, or arriving in someone's kernel directory) before khost push and run.
//
// Input: the text of a configs.json.
//
// Asserts, beyond no crash and no sanitizer report:
// - a parsed directory has variants, each with its ELF's file name as its name and no
//   "*_path" or "args" key among its parameters, whose names are unique;
// - every variant's parameters survive the results file: FormatParams then ParseParams gives them
//   back, as khost report reads them from the rows it wrote.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>

#include "common/results.h"
#include "host/results/kernel_dir.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  using namespace ktune::host;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto dir = ParseConfigsJson(text, "fuzz");
  if (!dir.ok()) return 0;
  FUZZ_CHECK(!dir->variants.empty());
  for (const KernelVariant& v : dir->variants) {
    FUZZ_CHECK(v.name == std::filesystem::path(v.elf_path).filename().string());
    std::set<std::string> names;
    for (const auto& [name, value] : v.params) {
      FUZZ_CHECK(!name.ends_with("_path") || name.size() <= 5);
      FUZZ_CHECK(name != "args");
      FUZZ_CHECK(names.insert(name).second);
    }
    auto back = ParseParams(FormatParams(v.params));
    FUZZ_CHECK(back.ok() && *back == v.params);
  }
  return 0;
}
