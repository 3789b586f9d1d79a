// khost agent tune-system: agentd, as root, sets every online CPU's cpufreq governor to
// performance and turns boost/turbo off where those files exist and are writable, keeping the
// values it replaced in its store (StoreLayout::tuned_system) so that a reset writes them back.
// Files under a root directory, so tests give it a fixture tree.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace ktune::agent {

// Tunes (or, with `reset`, restores) the files under `root` ("" for the real /), remembering the
// replaced values in `saved_path`. Returns each change in words ("cpu1 governor: powersave ->
// performance", or why a file stayed), or one line saying there was nothing to change. Fails
// unless `running_as_root`.
Result<std::vector<std::string>> TuneSystem(const std::string& root, const std::string& saved_path,
                                            bool reset, bool running_as_root);

}  // namespace ktune::agent
