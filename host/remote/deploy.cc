#include "host/remote/deploy.h"

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <thread>

#include "common/cpu.h"
#include "common/fs.h"
#include "common/hash.h"
#include "common/strings.h"
#include "common/version.h"
#include "host/remote/agent_client.h"
#include "host/remote/agent_locator.h"
#include "host/remote/ssh.h"
#include "host/util/elf_symbols.h"
#include "host/util/khost_files.h"
#include "host/util/subprocess.h"

namespace ktune::host {

namespace {

// What the board's install line prints when it could not make the user linger.
constexpr const char* kNoLinger = "ktune-no-linger";

// The agent answering through `forward`: its version, or why it does not answer.
Result<std::string> AgentVersion(const PortForward& forward) {
  KT_ASSIGN_OR_RETURN(auto conn, AgentConnection::ConnectLocal(forward.socket_path()));
  return conn->hello().agent_version();
}

// A command's last line of output, trimmed.
Result<std::string> RunLine(const SshLink& link, const std::string& command) {
  KT_ASSIGN_OR_RETURN(const std::string out, link.Run(command));
  return LastLine(out);
}

}  // namespace

std::vector<std::string> AgentdCandidates(const std::string& arch, const std::string& khost_dir,
                                          const std::string& source_dir,
                                          const std::string& host_arch) {
  std::vector<std::string> paths = {khost_dir + "/agentd-" + arch,
                                    source_dir + "/build-agent-" + arch + "/bin/agentd"};
  if (arch == host_arch) paths.push_back(khost_dir + "/agentd");
  return paths;
}

std::string RenderUnit(const std::string& unit_template, const std::string& agentd_path,
                       uint16_t port, const std::string& store) {
  std::string unit = unit_template;
  for (const auto& [field, value] : {std::pair<std::string, std::string>{"@AGENTD@", agentd_path},
                                     {"@PORT@", std::to_string(port)},
                                     {"@STORE@", store}}) {
    for (size_t at; (at = unit.find(field)) != std::string::npos;)
      unit.replace(at, field.size(), value);
  }
  return unit;
}

namespace {

// The agentd to copy: --agentd, else the first candidate built for the board's architecture.
Result<std::string> ChooseAgentd(const RegisteredAgent& agent, const std::string& arch,
                                 const DeployOptions& options) {
  if (!options.agentd.empty()) return options.agentd;
  for (const std::string& c : AgentdCandidates(arch, KhostDir(), KTUNE_SOURCE_DIR, MachineArch())) {
    if (::access(c.c_str(), X_OK) == 0) return c;
  }
  return NotFound("board " + agent.name + " is " + arch + " and there is no agentd for " + arch +
                  " (scripts/build_agent.sh " + arch + ", or --agentd PATH)");
}

// Where things go on the board. Absolute paths from its $HOME, read once, rather than shell or
// systemd expansions (systemd's %h is /root for every system unit).
struct BoardPaths {
  std::string dir;     // the binaries
  std::string store;   // agentd's --store
  std::string remote;  // this build's binary
};

Result<BoardPaths> PathsOnBoard(const SshLink& link, const DeployOptions& options,
                                const std::string& hash) {
  KT_ASSIGN_OR_RETURN(const std::string home, RunLine(link, "echo \"$HOME\""));
  auto absolute = [&](const std::string& given, const std::string& fallback) {
    const std::string path = given.empty() ? home + "/" + fallback : given;
    return path.starts_with("/") ? path : home + "/" + path;
  };
  BoardPaths p;
  p.dir = absolute(options.bin_dir, ".local/lib/ktune");
  p.store = absolute(options.store, ".local/share/ktune/agent");
  p.remote = p.dir + "/agentd-" + hash;
  return p;
}

// Copies the binary unless this build is there already. Into a file of the board shell's own,
// checked whole before it takes the binary's name: a copy cut short (a dropped link) is never
// taken for the binary by the next deploy.
Status CopyAgentd(const SshLink& link, const RegisteredAgent& agent, const BoardPaths& paths,
                  const std::string& local, const std::string& bytes, const std::string& hash) {
  const std::string q_dir = CommandLine({paths.dir}), q_remote = CommandLine({paths.remote});
  KT_ASSIGN_OR_RETURN(const std::string present,
                      RunLine(link, "test -x " + q_remote + " && echo present || echo absent"));
  if (present == "present") return Status::Ok();
  const std::string tmp = q_dir + "/.agentd-" + hash + ".$$";
  KT_RETURN_IF_ERROR(link.Run("mkdir -p " + q_dir + " && cat > " + tmp + " && [ \"$(wc -c < " +
                                  tmp + ")\" -eq " + std::to_string(bytes.size()) +
                                  " ] && chmod 755 " + tmp + " && mv " + tmp + " " + q_remote +
                                  " || { rm -f " + tmp + "; exit 1; }",
                              local)
                         .status());
  std::cerr << "khost agent: copied " << local << " (" << bytes.size() << " bytes) to "
            << agent.name << ":" << paths.remote << "\n";
  return Status::Ok();
}

// An agentd started by an earlier deploy wrote its pid: the same build still answering is left
// as it is (true); any other (another build, another protocol) is stopped first (false).
Result<bool> KeepRunningAgentd(const SshLink& link, const PortForward& forward,
                               const BoardPaths& paths, const DeployOptions& options) {
  const std::string q_store = CommandLine({paths.store});
  KT_ASSIGN_OR_RETURN(const std::string running_exe,
                      RunLine(link, "p=$(cat " + q_store +
                                        "/agentd.pid 2>/dev/null) && [ -n \"$p\" ] "
                                        "&& readlink /proc/$p/exe || true"));
  if (running_exe.empty()) return false;
  if (running_exe == paths.remote && !options.systemd && AgentVersion(forward).ok()) return true;
  KT_RETURN_IF_ERROR(
      link.Run("p=$(cat " + q_store +
               "/agentd.pid) && kill $p; for i in 1 2 3 4 5 6 7 8 9 10; "
               "do [ -e /proc/$p ] || exit 0; sleep 1; done; echo \"agentd $p does not stop\"; "
               "exit 1")
          .status());
  return false;
}

// Installs and starts the systemd unit. Root installs a system unit; anyone else a user unit,
// which outlives the user's sessions (the ssh master's included) only when the user lingers.
Status InstallUnit(const SshLink& link, const RegisteredAgent& agent, const BoardPaths& paths) {
  KT_ASSIGN_OR_RETURN(const std::string unit_template,
                      ReadFile(ShippedDir() + "/scripts/ktune-agentd.service"));
  const std::string unit_file = SshControlDir() + "/" + agent.name + ".service";
  KT_RETURN_IF_ERROR(WriteFileAtomic(
      unit_file, RenderUnit(unit_template, paths.remote, agent.agent_port, paths.store)));
  auto installed = link.Run(
      "if [ \"$(id -u)\" = 0 ]; then d=/etc/systemd/system; s=systemctl; else "
      "d=\"$HOME/.config/systemd/user\"; s='systemctl --user'; fi; mkdir -p \"$d\" && cat > "
      "\"$d/ktune-agentd.service\" && $s daemon-reload && $s enable ktune-agentd.service && "
      "$s restart ktune-agentd.service && if [ \"$(id -u)\" != 0 ] && ! loginctl "
      "enable-linger >/dev/null 2>&1; then echo " +
          std::string(kNoLinger) + "; fi",
      unit_file);
  std::filesystem::remove(unit_file);
  KT_RETURN_IF_ERROR(installed.status());
  if (installed->find(kNoLinger) != std::string::npos) {
    std::cerr << "khost: board " << agent.name
              << ": the user unit stops when the user's last session ends (loginctl "
                 "enable-linger was refused; run it as root on the board)\n";
  }
  return Status::Ok();
}

// The handshake: agentd answers through the forward with khost's version (5 s to come up).
Result<std::string> AwaitAgentd(const PortForward& forward, const RegisteredAgent& agent) {
  Result<std::string> version = Unavailable("not tried");
  for (int attempt = 0; attempt < 50; ++attempt) {
    version = AgentVersion(forward);
    if (version.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!version.ok()) {
    return version.status().WithContext("board " + agent.name +
                                        ": agentd was started but does "
                                        "not answer on port " +
                                        std::to_string(agent.agent_port));
  }
  if (*version != KTUNE_VERSION) {
    return Status(ErrorCode::kVersionMismatch, "board " + agent.name + " answers with agentd " +
                                                   *version + ", not khost's " + KTUNE_VERSION +
                                                   " (is another agentd on port " +
                                                   std::to_string(agent.agent_port) + "?)");
  }
  return version;
}

}  // namespace

Status DeployAgent(const RegisteredAgent& agent, const DeployOptions& options) {
  if (!agent.ssh) {
    return InvalidArgument("agent " + agent.name +
                           " is reached at an address, not over ssh: deploy needs ssh (khost "
                           "agent add NAME --ssh [USER@]HOST[:PORT])");
  }
  KT_ASSIGN_OR_RETURN(auto link, SshLink::Open(agent.name, SshSpecFor(agent)));
  KT_ASSIGN_OR_RETURN(const std::string arch, RunLine(*link, "uname -m"));
  KT_ASSIGN_OR_RETURN(const std::string local, ChooseAgentd(agent, arch, options));
  KT_ASSIGN_OR_RETURN(const std::string bytes, ReadFile(local));
  if (const std::string elf_arch = ElfArch(bytes); elf_arch != arch) {
    return InvalidArgument(local + " is " +
                           (elf_arch.empty() ? "not an agentd ELF" : "built for " + elf_arch) +
                           "; board " + agent.name + " is " + arch);
  }
  const std::string hash = HashBytes(bytes).substr(0, 16);
  KT_ASSIGN_OR_RETURN(const BoardPaths paths, PathsOnBoard(*link, options, hash));
  KT_RETURN_IF_ERROR(CopyAgentd(*link, agent, paths, local, bytes, hash));
  // One forward to agentd's port serves every look at the agent below.
  KT_ASSIGN_OR_RETURN(const auto forward, PortForward::Open(*link, agent.agent_port));
  KT_ASSIGN_OR_RETURN(const bool kept, KeepRunningAgentd(*link, *forward, paths, options));
  if (kept) {
    std::cout << "agentd " << KTUNE_VERSION << " already runs on " << agent.name << " (" << arch
              << ", port " << agent.agent_port << ")\n";
    return Status::Ok();
  }
  if (options.systemd) {
    KT_RETURN_IF_ERROR(InstallUnit(*link, agent, paths));
  } else {
    KT_RETURN_IF_ERROR(link->Run(CommandLine({paths.remote}) +
                                 " --listen 127.0.0.1:" + std::to_string(agent.agent_port) +
                                 " --store " + CommandLine({paths.store}) + " --daemon")
                           .status());
  }
  KT_ASSIGN_OR_RETURN(const std::string version, AwaitAgentd(*forward, agent));
  std::cout << "agentd " << version << " runs on " << agent.name << " (" << arch << ", port "
            << agent.agent_port << (options.systemd ? ", systemd unit ktune-agentd" : "") << ")\n";
  return Status::Ok();
}

}  // namespace ktune::host
