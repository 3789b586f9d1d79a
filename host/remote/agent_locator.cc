#include "host/remote/agent_locator.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "host/remote/agent_registry.h"
#include "host/util/khost_files.h"
#include "host/util/user_paths.h"

namespace ktune::host {
namespace fs = std::filesystem;

namespace {

// agentd next to khost (build tree and install tree alike), unless KTUNE_AGENTD names one.
std::string AgentdPath() {
  if (const char* p = std::getenv("KTUNE_AGENTD"); p && *p) return p;
  return KhostDir() + "/agentd";
}

}  // namespace

Result<AgentChoice> ChooseAgent(const std::string& flag, const std::string& env,
                                const std::string& config_text, const std::string& config_path) {
  AgentChoice choice;
  std::string text;
  // The file is read only when it decides: a broken one does not stop --agent HOST:PORT.
  auto config = [&]() { return ParseConfigText(config_text, config_path); };
  if (!flag.empty()) {
    text = flag;
    choice.source = "--agent";
  } else if (!env.empty()) {
    text = env;
    choice.source = "KTUNE_AGENT";
  } else {
    KT_ASSIGN_OR_RETURN(const nlohmann::json doc, config());
    if (doc.contains("agent")) {
      if (!doc["agent"].is_string()) {
        return InvalidArgument(config_path +
                               ": \"agent\" must be an agent's name or a \"HOST:PORT\" string");
      }
      text = doc["agent"].get<std::string>();
      choice.source = config_path;
    }
  }
  if (text.empty()) return choice;
  if (text.find(':') == std::string::npos) {  // a name: names never hold ':'
    KT_ASSIGN_OR_RETURN(const nlohmann::json doc, config());
    KT_ASSIGN_OR_RETURN(const std::vector<RegisteredAgent> agents, ReadRegistry(doc, config_path));
    choice.registered = FindAgent(agents, text);
    if (!choice.registered) {
      return NotFound(choice.source + ": no agent named '" + text +
                      "' (khost agent list shows the registered ones; an address is HOST:PORT)");
    }
    choice.address = choice.registered->addr;
    return choice;
  }
  auto hp = ParseHostPort(text);
  if (!hp.ok()) return hp.status().WithContext(choice.source);
  choice.address = *hp;
  return choice;
}

Result<std::string> ChooseTokenFile(const std::string& flag, const std::string& env,
                                    const std::string& agent_token_file,
                                    const std::string& config_text,
                                    const std::string& config_path) {
  if (!flag.empty()) return flag;
  if (!env.empty()) return env;
  if (!agent_token_file.empty()) return agent_token_file;
  KT_ASSIGN_OR_RETURN(const nlohmann::json doc, ParseConfigText(config_text, config_path));
  if (!doc.contains("token_file")) return std::string();
  if (!doc["token_file"].is_string()) {
    return InvalidArgument(config_path + ": \"token_file\" must be a path");
  }
  return doc["token_file"].get<std::string>();
}

std::string ConfigFilePath() {
  return EnvOr("XDG_CONFIG_HOME", HomeDir() + "/.config") + "/ktune/config.json";
}

std::string LocalAgentStoreDir() {
  const std::string dir = EnvOr("XDG_CACHE_HOME", HomeDir() + "/.cache") + "/ktune/local-agent";
  return ::geteuid() != 0 || SearchableByOthers(dir) ? dir : "/var/lib/ktune/local-agent";
}

bool SearchableByOthers(const std::string& path) {
  fs::path at;
  for (const fs::path& part : fs::absolute(path).lexically_normal()) {
    at /= part;
    struct stat st;
    if (::stat(at.c_str(), &st) != 0) return true;  // made later, by agentd
    if (!(st.st_mode & S_IXOTH)) return false;
  }
  return true;
}

std::string SshControlDir() {
  const std::string dir = EnvOr("XDG_CACHE_HOME", HomeDir() + "/.cache") + "/ktune/ssh";
  // ssh names a control socket <dir>/<%C: 40 hex digits> and adds a 17-character suffix while
  // it makes one; a unix socket's path holds at most 107 bytes.
  constexpr size_t kMaxSocketPathBytes = 107, kControlNameBytes = 1 + 40 + 17;
  if (dir.size() + kControlNameBytes <= kMaxSocketPathBytes) return dir;
  return "/tmp/ktune-ssh-" + std::to_string(::getuid());
}

SshSpec SshSpecFor(const RegisteredAgent& agent) {
  return {agent.ssh.value_or(SshTarget{}), agent.ssh_options, SshControlDir()};
}

Result<std::string> ReadConfigFile(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec) && !ec) return std::string();
  return ReadFile(path);
}

Status WriteConfigFile(const std::string& path, const nlohmann::json& config) {
  KT_RETURN_IF_ERROR(MakeDirs(path.substr(0, path.rfind('/'))));
  return WriteUserFile(path, config.dump(2) + "\n");  // a link (dotfiles) stays a link
}

namespace {

// Why the forward to board `a`'s agentd port reaches no agentd (`failed`, ConnectLocal's error):
// something listening there that the forward cannot reach is the board's sshd refusing to
// forward; else no agentd runs.
Status WhyNoAgentdOverSsh(SshLink& ssh, const RegisteredAgent& a, const Status& failed) {
  auto tables = ssh.Run("cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; true", "", 20);
  if (tables.ok() && ListensOnPort(*tables, a.agent_port)) {
    return failed.WithContext("board " + a.name + ": something listens on its port " +
                              std::to_string(a.agent_port) +
                              " but the board's sshd does not forward to it "
                              "(AllowTcpForwarding in its sshd_config?)");
  }
  return failed.WithContext("board " + a.name + ": no agentd answers on its port " +
                            std::to_string(a.agent_port) + " (khost agent deploy " + a.name +
                            " starts one)");
}

// Board `a`, registered with --ssh: its ControlMaster, a forward to agentd on the board's
// loopback, the connection through it. Over ssh agentd stays on the board's loopback: no token.
Result<AgentSession> OpenSshSession(const RegisteredAgent& a, const std::string& token_flag) {
  if (!token_flag.empty()) {
    return InvalidArgument("--token-file: board " + a.name +
                           " is reached over ssh, where agentd takes no token");
  }
  AgentSession session;
  KT_ASSIGN_OR_RETURN(session.ssh, SshLink::Open(a.name, SshSpecFor(a)));
  KT_ASSIGN_OR_RETURN(session.forward, PortForward::Open(*session.ssh, a.agent_port));
  auto conn = AgentConnection::ConnectLocal(session.forward->socket_path());
  if (!conn.ok()) return WhyNoAgentdOverSsh(*session.ssh, a, conn.status());
  session.conn = std::move(conn).value();
  session.name = a.name;
  return session;
}

// The agent chosen at an address, or, with none chosen, a local agentd started for the command
// (said on stderr); connected with the token in `token_file` when one is named.
Result<AgentSession> OpenDirectSession(const AgentChoice& choice, const std::string& token_file,
                                       const std::string& config_path) {
  std::optional<Token> token;
  if (!token_file.empty()) {
    KT_ASSIGN_OR_RETURN(token, Token::Load(token_file));
  }
  AgentSession session;
  HostPort address;
  if (choice.address) {
    address = *choice.address;
  } else {
    const std::string store = LocalAgentStoreDir();
    KT_ASSIGN_OR_RETURN(session.local, LocalAgent::Open(store, AgentdPath()));
    address = session.local->address();
    std::cerr << "khost: no agent given (--agent, KTUNE_AGENT or " << config_path << "); "
              << (session.local->started() ? "started a local agentd on "
                                           : "using the local agentd another khost started on ")
              << address.ToString() << " (store " << store << ")\n";
  }
  KT_ASSIGN_OR_RETURN(session.conn, AgentConnection::Connect(address, token));
  session.name = choice.registered ? choice.registered->name : address.ToString();
  return session;
}

}  // namespace

Result<AgentChoice> ChooseAgentFor(const std::string& agent_flag) {
  const std::string config_path = ConfigFilePath();
  KT_ASSIGN_OR_RETURN(const std::string config, ReadConfigFile(config_path));
  return ChooseAgent(agent_flag, EnvOr("KTUNE_AGENT", ""), config, config_path);
}

Result<AgentSession> OpenAgentSession(const std::string& agent_flag,
                                      const std::string& token_flag) {
  const std::string config_path = ConfigFilePath();
  KT_ASSIGN_OR_RETURN(const std::string config, ReadConfigFile(config_path));
  KT_ASSIGN_OR_RETURN(const AgentChoice choice,
                      ChooseAgent(agent_flag, EnvOr("KTUNE_AGENT", ""), config, config_path));
  if (choice.registered && choice.registered->ssh) {
    return OpenSshSession(*choice.registered, token_flag);
  }
  if (choice.registered && choice.registered->lava) {
    return InvalidArgument(choice.source + ": agent " + choice.registered->name +
                           " is a LAVA lab's boards, which khost run and khost tune reserve; "
                           "this command needs one agent it can reach as it is");
  }
  KT_ASSIGN_OR_RETURN(
      const std::string token_file,
      ChooseTokenFile(token_flag, EnvOr("KTUNE_TOKEN_FILE", ""),
                      choice.registered ? choice.registered->token_file : "", config, config_path));
  return OpenDirectSession(choice, token_file, config_path);
}

}  // namespace ktune::host
