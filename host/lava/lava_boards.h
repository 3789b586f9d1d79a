// A LAVA lab as an agent source (docs/LAVA.md). For one command khost reserves the registered
// number of boards: it submits the job template once per board (host/lava/job_template.h),
// follows each job through the lab's API (queued and how many jobs before it, scheduled on which
// device, running), reads the board's console in the job's log until agentd says where it
// listens, and connects with the job's one-time token. The boards that come up are the command's
// agents, sharded and failed over as any others. Each session holds its job: the job is
// cancelled when the session ends, when khost ends, and when khost is interrupted (SIGINT,
// SIGTERM, SIGHUP: the live jobs are cancelled, then khost dies of the signal as before). A
// khost killed outright leaves its jobs to their own timeout ("job_minutes").
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/remote/agent_locator.h"
#include "host/remote/agent_registry.h"

namespace ktune::host {

// The sessions of the boards of `agent` (registered with a LAVA lab) that came up, each named
// "<agent>/<job id>"; what happens to each job is said on `say`, a line per change. A board
// whose job fails, is cancelled, or is still queued or booting when its job's time is up is said
// and left out; an error, with each job's reason, when none came up.
Result<std::vector<AgentSession>> ReserveLavaBoards(const RegisteredAgent& agent,
                                                    std::ostream& say);

// Whether `name` is a board that ReserveLavaBoards named, and then its agent's name.
std::optional<std::string> LavaAgentOf(const std::string& board_name);

}  // namespace ktune::host
