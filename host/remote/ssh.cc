#include "host/remote/ssh.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "common/fs.h"
#include "common/strings.h"
#include "host/util/subprocess.h"

namespace ktune::host {

namespace {

// What ssh said last, for an error line.
std::string SshSaid(const std::string& output) {
  std::string line = LastLine(output);
  return line.empty() ? "(ssh said nothing)" : line;
}

}  // namespace

bool ListensOnPort(const std::string& table, uint16_t port) {
  // Each row: "sl local_address rem_address st ...", the address as HEX:PORT (port 4 hex
  // digits), the state 0A for LISTEN.
  char wanted[8];
  std::snprintf(wanted, sizeof wanted, ":%04X", port);
  for (std::string_view line : Split(table, '\n')) {
    std::vector<std::string_view> fields;
    for (std::string_view f : Split(line, ' ')) {
      if (!f.empty()) fields.push_back(f);
    }
    if (fields.size() > 3 && fields[1].ends_with(wanted) && fields[3] == "0A") return true;
  }
  return false;
}

std::vector<std::string> SshArgv(const SshSpec& spec, const std::vector<std::string>& extra,
                                 const std::string& command) {
  std::vector<std::string> argv = {"ssh"};
  // ssh takes the first value given for an option. These come before the user's (here and in
  // ~/.ssh/config): only the master khost starts is a master, and commands run as given.
  if (std::find(extra.begin(), extra.end(), "ControlMaster=auto") == extra.end()) {
    argv.insert(argv.end(), {"-o", "ControlMaster=no"});
  }
  argv.insert(argv.end(), {"-o", "RemoteCommand=none", "-o", "RequestTTY=no"});
  // Then the user's, which win over ktune's defaults below.
  for (const std::string& o : spec.options) argv.insert(argv.end(), {"-o", o});
  for (const std::string& o :
       {std::string("BatchMode=yes"), std::string("ConnectTimeout=10"),
        std::string("ServerAliveInterval=10"), std::string("ServerAliveCountMax=3"),
        std::string("LogLevel=ERROR"), "ControlPath=" + spec.control_dir + "/%C"}) {
    argv.insert(argv.end(), {"-o", o});
  }
  if (spec.target.port) argv.insert(argv.end(), {"-p", std::to_string(spec.target.port)});
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(spec.target.Destination());
  if (!command.empty()) argv.push_back(command);
  return argv;
}

Result<std::unique_ptr<SshLink>> SshLink::Open(const std::string& name, const SshSpec& spec) {
  KT_RETURN_IF_ERROR(MakeDirs(spec.control_dir));
  // The sockets there open the board to whoever reaches them: the directory must be this
  // user's own (it may be in /tmp, see SshControlDir) and nobody else's to enter.
  struct stat st {};
  if (::lstat(spec.control_dir.c_str(), &st) != 0) {
    return ErrnoError("stat " + spec.control_dir, errno);
  }
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
    return IoError(spec.control_dir + " is not a directory of this user's own");
  }
  if (::chmod(spec.control_dir.c_str(), 0700) != 0) {
    return ErrnoError("chmod " + spec.control_dir, errno);
  }
  std::unique_ptr<SshLink> link(new SshLink(name, spec));
  // One khost at a time checks for the board's master and starts it: two starting at once would
  // leave the second's connection running beside the master, unshared.
  KT_ASSIGN_OR_RETURN(ScopedFd lock,
                      OpenFile(spec.control_dir + "/" + name + ".lock", O_RDWR | O_CREAT, 0600));
  while (::flock(lock.get(), LOCK_EX) != 0) {
    if (errno != EINTR)
      return ErrnoError("flock " + spec.control_dir + "/" + name + ".lock", errno);
  }
  KT_ASSIGN_OR_RETURN(ToolRun check, RunTool(SshArgv(spec, {"-O", "check"}), {}));
  if (check.exit_code == 0) return link;
  // The master goes to the background once authenticated (-f) and outlives khost; its messages
  // go to a file, since a pipe would stay open as long as it runs.
  ToolOptions options;
  options.stdout_path = spec.control_dir + "/" + name + ".log";
  options.stderr_too = true;
  options.timeout_seconds = 60;
  KT_ASSIGN_OR_RETURN(ToolRun master,
                      RunTool(SshArgv(spec, {"-o", "ControlMaster=auto", "-o",
                                             "ControlPersist=" + std::to_string(kSshPersistSeconds),
                                             "-o", "ClearAllForwardings=yes", "-N", "-f"}),
                              options));
  if (master.exit_code == 0) return link;
  const std::string why = SshSaid(master.output);
  const std::string what = "board " + name + " (ssh " + spec.target.ToString() + "): " + why;
  if (why.find("Permission denied") != std::string::npos ||
      why.find("Host key verification failed") != std::string::npos) {
    return Unauthenticated(what + " (ssh options: khost agent add --ssh-option KEY=VALUE)");
  }
  return Unavailable(what);
}

Result<std::string> SshLink::Run(const std::string& command, const std::string& stdin_path,
                                 double timeout_seconds) const {
  ToolOptions options;
  options.stdin_path = stdin_path;
  options.timeout_seconds = timeout_seconds;
  // Through sh: the user's login shell may not be a POSIX one.
  KT_ASSIGN_OR_RETURN(ToolRun run,
                      RunTool(SshArgv(spec_, {}, CommandLine({"sh", "-c", command})), options));
  if (run.exit_code != 0) {
    return Unavailable("on board " + name_ + ", '" + command + "' failed (exit " +
                       std::to_string(run.exit_code) + "): " + SshSaid(run.output));
  }
  return run.output;
}

Result<std::unique_ptr<PortForward>> PortForward::Open(const SshLink& link, uint16_t remote_port) {
  // One socket per forward of this process, made by the master (0600: StreamLocalBindMask) in
  // the 0700 control directory.
  static std::atomic<int> forwards{0};
  const std::string socket_path = link.spec().control_dir + "/fwd-" + std::to_string(::getpid()) +
                                  "-" + std::to_string(forwards++) + ".sock";
  const std::string spec = socket_path + ":127.0.0.1:" + std::to_string(remote_port);
  KT_ASSIGN_OR_RETURN(ToolRun run, RunTool(SshArgv(link.spec(), {"-O", "forward", "-L", spec})));
  if (run.exit_code != 0) {
    return Unavailable("board " + link.name() + ": cannot forward a local socket to its port " +
                       std::to_string(remote_port) + ": " + SshSaid(run.output));
  }
  return std::unique_ptr<PortForward>(new PortForward(link, spec, socket_path));
}

PortForward::~PortForward() {
  // Best effort: a master that is gone took the forward with it.
  (void)RunTool(SshArgv(link_.spec(), {"-O", "cancel", "-L", spec_}));
  ::unlink(socket_path_.c_str());
}

}  // namespace ktune::host
