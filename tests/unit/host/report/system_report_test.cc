#include "host/report/system_report.h"

#include <doctest/doctest.h>

#include "tests/unit/common/system_check_fixture.h"

namespace ktune::host {
namespace {

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST_CASE("the system check for people: a line a field, then each warning") {
  const std::string text = RenderSystemCheck(test::NoisyCheck());
  CHECK(text.starts_with("system (CPU 1):\n"));
  CHECK(Has(text, "  governor:     powersave"));
  CHECK(Has(text, "  frequency:    min 800 MHz, max 3600 MHz, now 1200 MHz"));
  CHECK(Has(text, "  boost:        on"));
  CHECK(Has(text, "  isolated:     isolcpus none, nohz_full none"));
  CHECK(Has(text, "  SMT siblings: 1,3"));
  CHECK(Has(text, "  caches:       L1d:48K L1i:32K L2:1280K L3:12288K"));
  CHECK(Has(text, "  ASLR:         2 (on)"));
  CHECK(text.find("broken unknown") != std::string::npos);
  CHECK(text.find("\nwarning: ") != std::string::npos);
}

TEST_CASE("a check the agent could not read says unknown, and no frequency without cpufreq") {
  SystemCheck c;
  const std::string text = RenderSystemCheck(c);
  CHECK(text.starts_with("system (CPU 0):\n"));
  CHECK(Has(text, "  governor:     none (no cpufreq)"));
  CHECK(text.find("frequency:") == std::string::npos);
  CHECK(Has(text, "  boost:        unknown"));
  CHECK(Has(text, "  thermal:      no thermal zones"));
  CHECK(Has(text, "  ASLR:         unknown"));
}

}  // namespace
}  // namespace ktune::host
