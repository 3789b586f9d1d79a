// An agent's system check for people, as khost agent status shows it: the measured CPU's
// governor, frequencies, boost, thermal zones, isolation, SMT siblings, ASLR and load, a line
// each, then a "warning: " line per SystemWarnings. Pure.
#pragma once

#include <string>

#include "common/system_check.h"

namespace ktune::host {

// The "system (CPU n):" section, each line ending in '\n'; a value the agent could not read is
// "unknown".
std::string RenderSystemCheck(const SystemCheck& check);

}  // namespace ktune::host
