// Running host tools (compilers, objdump, emulators) for `khost tune`: argv in, exit status and
// output out. No shell is involved: arguments are passed as they are. ParallelFor runs many.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune::host {

struct ToolRun {
  int exit_code = -1;  // -1 when the tool could not be started or was killed by a signal
  int signal = 0;      // the signal that ended it; 0 when it exited
  std::string output;  // stdout and stderr interleaved (stderr only when stdout goes to a file)
};

struct ToolOptions {
  std::string cwd;             // "" = khost's
  std::string stdout_path;     // "" = captured with stderr into `output`
  bool stderr_too = false;     // stderr also goes to stdout_path, which is then read into `output`
  std::string stdin_path{};    // "" = /dev/null
  double timeout_seconds = 0;  // > 0: SIGKILL the tool after this long
  std::vector<std::string> env{};  // NAME=VALUE set in the tool's environment (khost's otherwise)
};

// Runs argv[0] (looked up in PATH) to completion. Fails only when it cannot be started, or
// when it outlives its timeout (then it is killed).
Result<ToolRun> RunTool(const std::vector<std::string>& argv, const ToolOptions& options = {});

// The argv as one line a user can paste into a shell ('quoted' where needed).
std::string CommandLine(const std::vector<std::string>& argv);

// Calls `task(i)` for every i in [0, count) on `workers` threads (the caller's among them), each
// taking the next index when it is free; returns when all are done.
void ParallelFor(size_t count, size_t workers, const std::function<void(size_t)>& task);

// The last `n` lines of `text`.
std::string LastLines(const std::string& text, size_t n);
// The last line of `text` that is not blank, trimmed (for one-line notes of what a program said);
// "" when there is none.
std::string LastLine(std::string_view text);

}  // namespace ktune::host
