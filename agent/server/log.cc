#include "agent/server/log.h"

#include <atomic>
#include <cstdio>

#include "common/strings.h"

namespace ktune::agent {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
constexpr const char* kNames[] = {"error", "warn", "info", "debug"};

}  // namespace

bool ParseLogLevel(std::string_view text, LogLevel* out) {
  for (int i = 0; i < 4; ++i) {
    if (text == kNames[i]) {
      *out = static_cast<LogLevel>(i);
      return true;
    }
  }
  return false;
}

void SetLogLevel(LogLevel level) {
  g_level = static_cast<int>(level);
}

void Log(LogLevel level, const std::string& message) {
  if (static_cast<int>(level) > g_level) return;
  std::fprintf(stderr, "%s agentd %s: %s\n", UtcNowText(/*compact=*/false).c_str(),
               kNames[static_cast<int>(level)], message.c_str());
}

}  // namespace ktune::agent
