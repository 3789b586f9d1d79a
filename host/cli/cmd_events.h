// khost events list|groups: its request, the pure function that parses argv into it (unit-tested),
// its command line and its entry point for the command table (host/cli/command.h).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "host/cli/command.h"

namespace ktune::host {

struct EventsRequest {
  std::string action;     // one of EventsActions()
  std::string cpu_model;  // a table to show; "" asks the agent
  std::string agent;
  std::string token_file;
};
const std::vector<std::string>& EventsActions();
Result<EventsRequest> ParseEventsArgs(const Args& args);
cxxopts::Options EventsCliOptions();
int EventsMain(const Args& args);

}  // namespace ktune::host
