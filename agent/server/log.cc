#include "agent/server/log.h"

#include <time.h>

#include <atomic>
#include <cstdio>

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
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  tm utc;
  gmtime_r(&ts.tv_sec, &utc);
  char when[32];
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &utc);
  std::fprintf(stderr, "%s.%03ldZ agentd %s: %s\n", when, ts.tv_nsec / 1000000,
               kNames[static_cast<int>(level)], message.c_str());
}

}  // namespace ktune::agent
