// The job khost submits to a LAVA lab for each board (khost agent add --job-template): the lab's
// own job definition, with khost's placeholders filled in for that board (pure):
//
//   {{KTUNE_TOKEN}}         the one-time token the board's agentd must take (64 hex digits)
//   {{KTUNE_PORT}}          a free TCP port of this host (a qemu device's hostfwd, a tunnel)
//   {{KTUNE_JOB_NAME}}      "ktune <agent> board <i> of <n>"
//   {{KTUNE_JOB_MINUTES}}   the job's timeout: how long the board stays reserved at most
//   {{KTUNE_DEVICE_TYPE}}   the device type the agent was registered with
//
// The filled job's "device_type:" must be that device type (a template written for another
// type is refused, not submitted to boards khost does not follow).
//
// khost learns where agentd listens from the board's console ("agentd ... listening on
// HOST:PORT"), unless the template has a line "# ktune-address: HOST:PORT" (filled like the
// rest): then there, as when the console's address is the board's inside a NAT.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/address.h"
#include "common/status.h"

namespace ktune::host {

struct JobValues {
  std::string token = "";
  uint16_t port = 0;
  std::string job_name = "";
  int64_t job_minutes = 0;
  std::string device_type = "";
};

// The template with every placeholder filled; an unknown {{KTUNE_...}} is an error naming
// `path` and it, and so is a top-level "device_type:" other than values.device_type. Other text,
// LAVA's own braces included, is kept as it is.
Result<std::string> FillJobTemplate(const std::string& text, const JobValues& values,
                                    const std::string& path);

// The address of a "# ktune-address: HOST:PORT" line of a filled job, nullopt when it has none;
// an error naming `path` when the line holds no address.
Result<std::optional<HostPort>> JobAgentAddress(const std::string& job, const std::string& path);

}  // namespace ktune::host
