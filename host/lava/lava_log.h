// A LAVA job's log as the REST API serves it (GET /api/v0.2/jobs/N/logs/): one YAML line per
// record, "- {"dt": "...", "lvl": "...", "msg": "..."}", every scalar double-quoted (lava_common's
// dump). khost reads the board's console ("lvl": "target") from it to learn where agentd
// listens. The bytes come from the lab and the board: parsed here, fuzzed (tests/fuzz).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/address.h"

namespace ktune::host {

struct LavaLogLine {
  std::string level;    // "target" for the board's console, "info", "error", "results"...
  std::string message;  // "" when the record's message is not a string (a result's mapping)
};

// One line of the log; nullopt when it is not a record in that form.
std::optional<LavaLogLine> ParseLavaLogLine(std::string_view line);

// Every record of `text` (whole lines; a last line without its newline is left out, since the
// log may be read while it grows); `complete_lines` gets how many whole lines `text` held.
std::vector<LavaLogLine> ParseLavaLog(std::string_view text, size_t* complete_lines);

// The address agentd says it listens on in a console line ("agentd 0.1.0 listening on
// 10.0.2.15:7178 ..."), if the line says so.
std::optional<HostPort> AgentdListening(std::string_view console_line);

}  // namespace ktune::host
