// Helpers for integration tests: temporary directories, an agentd child process on a free
// loopback port, running khost as a child process, and building a kernel directory in the
// seed's layout from the test ELFs.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/address.h"
#include "common/results.h"

namespace ktune::test {

std::string BinDir();    // where agentd and khost are
std::string ElvesDir();  // where the test ELFs are

class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// agentd --listen 127.0.0.1:0 --store <store> [extra args], stopped with SIGTERM on destruction
// (one that has not stopped 30 s later is reported hung and killed);
// `wrapper` (e.g. setpriv and its options, or qemu-riscv64) runs it when given; `exe` is another
// agentd binary than this build's.
class AgentProcess {
 public:
  explicit AgentProcess(const std::string& store_dir, const std::vector<std::string>& extra = {},
                        const std::vector<std::string>& wrapper = {}, const std::string& exe = "");
  ~AgentProcess();
  const HostPort& address() const { return address_; }
  int pid() const { return pid_; }
  // SIGKILL, as a power cut or the OOM killer would, and reaped.
  void Kill();

 private:
  int pid_ = -1;
  HostPort address_;
};

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
  // stderr split into lines.
  std::vector<std::string> ErrLines() const;
};

// A program started in the background, its output kept in files under a scratch directory;
// killed (SIGKILL) on destruction unless waited for. One that does not end within 300 s of
// Wait() is reported hung (a failed check naming what its threads wait in) and killed.
class Program {
 public:
  // The environment is the test's, with KTUNE_AGENT removed and `extra_env` added.
  Program(const std::string& exe, const std::vector<std::string>& args,
          const std::string& scratch_dir, const std::map<std::string, std::string>& extra_env = {});
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  // Waits for it to end (exit_code -1 when a signal ended it).
  CommandResult Wait();
  void Kill(int signal);
  int pid() const { return pid_; }

 private:
  int pid_ = -1;
  std::string exe_, out_path_, err_path_;
};

// Runs `exe` with `args` to completion (Program, waited for).
CommandResult RunProgram(const std::string& exe, const std::vector<std::string>& args,
                         const std::string& scratch_dir,
                         const std::map<std::string, std::string>& extra_env = {});

// Runs khost with `args`; the environment is the test's, with KTUNE_AGENT removed and
// XDG_CONFIG_HOME/XDG_CACHE_HOME/XDG_DATA_HOME pointed at `home` so no user configuration leaks in.
CommandResult RunKhost(const std::vector<std::string>& args, const std::string& home,
                       const std::map<std::string, std::string>& extra_env = {});
// The same, in the background; its output goes to files in `scratch_dir` (one per program).
std::unique_ptr<Program> StartKhost(const std::vector<std::string>& args, const std::string& home,
                                    const std::string& scratch_dir);

// Polls (every 20 ms, up to `limit_s` seconds) until `done` holds; false when it never did.
bool WaitFor(const std::function<bool()>& done, double limit_s = 120);

// The rows of a results file (ParseResultsCsv), none when it is missing or unreadable.
std::vector<RepetitionRow> RowsOf(const std::string& results_path);
size_t RowsIn(const std::string& results_path);
// The one results file (<run_id>.csv) of <kernel>/run, "" when there is none.
std::string OnlyResults(const std::string& kernel_run_dir);

struct TestVariant {
  std::string elf;  // file name in ElvesDir(), e.g. "ok.elf"
  std::map<std::string, int> params;
  std::vector<std::string> args;
};

// Writes <root>/<kernel>/run/{bin/*.elf,test_data/matrix_4x4_1.txt,configs.json} in the seed's
// layout (perf_files.stat = <kernel>/run/perf_stats.csv). Each variant gets its own copy of its
// ELF (from `elves_dir`, default ElvesDir()), named "<index>_<elf>".
void MakeKernelDir(const std::string& root, const std::string& kernel,
                   const std::vector<TestVariant>& variants, const std::string& elves_dir = "");

// A loopback port on which nothing listens.
uint16_t UnusedPort();

// A TCP proxy on a loopback port in front of `target`, for one connection at a time, that can
// misbehave like a network: after `flip_after` bytes from the agent it flips one bit of the next
// byte (a third party altering the stream), and after `cut_after` bytes in either direction it
// closes both sides (a link that drops). Stops on destruction.
class FaultProxy {
 public:
  struct Faults {
    std::optional<uint64_t> flip_after;  // bytes agent -> host before the flipped one
    std::optional<uint64_t> cut_after;   // bytes (both directions together) before the cut
  };
  FaultProxy(const HostPort& target, Faults faults);
  ~FaultProxy();
  const HostPort& address() const { return address_; }
  uint64_t bytes_forwarded() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  HostPort address_;
};

}  // namespace ktune::test
