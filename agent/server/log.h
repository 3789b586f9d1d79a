// agentd's log: one line per event on stderr, with a UTC timestamp and a level; lines below the
// configured level are dropped.
#pragma once

#include <string>
#include <string_view>

namespace ktune::agent {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

bool ParseLogLevel(std::string_view text, LogLevel* out);
void SetLogLevel(LogLevel level);
void Log(LogLevel level, const std::string& message);

}  // namespace ktune::agent
