#include "host/ssh.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "common/fs.h"
#include "common/strings.h"
#include "host/subprocess.h"

namespace ktune {

namespace {

std::string LastLine(const std::string& text) {
  std::string line = LastLines(text, 1);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line.empty() ? "(ssh said nothing)" : line;
}

// A loopback port nothing listens on now. Another process may take it before ssh does; the
// forward then fails and Open tries another.
Result<uint16_t> FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoError("socket", errno);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok) return ErrnoError("binding a loopback port", err);
  return ntohs(addr.sin_port);
}

}  // namespace

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
  const std::string why = LastLine(master.output);
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
                       std::to_string(run.exit_code) + "): " + LastLine(run.output));
  }
  return run.output;
}

Result<std::unique_ptr<PortForward>> PortForward::Open(const SshLink& link, uint16_t remote_port) {
  std::string why;
  for (int attempt = 0; attempt < 5; ++attempt) {
    KT_ASSIGN_OR_RETURN(const uint16_t local, FreeLoopbackPort());
    const std::string spec =
        "127.0.0.1:" + std::to_string(local) + ":127.0.0.1:" + std::to_string(remote_port);
    KT_ASSIGN_OR_RETURN(ToolRun run, RunTool(SshArgv(link.spec(), {"-O", "forward", "-L", spec})));
    if (run.exit_code == 0) return std::unique_ptr<PortForward>(new PortForward(link, spec, local));
    why = LastLine(run.output);
  }
  return Unavailable("board " + link.name() + ": cannot forward a local port to its port " +
                     std::to_string(remote_port) + ": " + why);
}

PortForward::~PortForward() {
  // Best effort: a master that is gone took the forward with it.
  (void)RunTool(SshArgv(link_.spec(), {"-O", "cancel", "-L", spec_}));
}

}  // namespace ktune
