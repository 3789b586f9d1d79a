// The ELF reader, the samples file and the attribution of samples to symbols, on the test ELFs
// (read as files, never run) and on malformed input.
#include <doctest/doctest.h>
#include <elf.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "common/fs.h"
#include "host/report/report.h"
#include "host/report/samples_report.h"
#include "host/results/samples.h"
#include "host/util/elf_symbols.h"
#include "tests/unit/host/results/samples_fixture.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

using namespace fixture;

TEST_CASE("the disassembly is annotated with each instruction's share") {
  const ElfSymbol k = *ElfImage::Parse(Bytes("spin.elf"))->Find("spin_kernel");
  const auto v = Symbolize({Record(k.addr + 2)}, {{0, {"spin.elf", "spin.elf"}}}, KTUNE_ELVES_DIR,
                           "spin_kernel")[0];
  char addr[32], header[64];
  std::snprintf(addr, sizeof addr, "%llx", static_cast<unsigned long long>(k.addr + 2));
  std::snprintf(header, sizeof header,
                "%016llx <spin_kernel>:", static_cast<unsigned long long>(k.addr));
  const std::string disassembly = std::string(header) + "\n  " + addr +
                                  ":\t48 01 c2\tadd %rax,%rdx\n\n0000000000401000 <other>:\n"
                                  "  401000:\tc3\tret\n";
  const std::string out = RenderAnnotated(v, "cpu-clock:u", disassembly);
  CHECK(out.find("<spin_kernel>:") != std::string::npos);
  CHECK(out.find(" 75.0% |   " + std::string(addr)) != std::string::npos);
  CHECK(out.find("<other>") == std::string::npos);  // not sampled, not shown
  CHECK(RenderAnnotated(v, "cycles", disassembly).find("no samples of cycles") !=
        std::string::npos);
  CHECK(RenderAnnotated(v, "cpu-clock:u", "").find(std::string(addr) + "  spin_kernel") !=
        std::string::npos);
}

}  // namespace
}  // namespace ktune::host
