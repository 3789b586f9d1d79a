#include "tests/integration/ssh_server.h"

#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <filesystem>
#include <stdexcept>

#include "common/fs.h"
#include "common/strings.h"

namespace ktune::test {

namespace {

// (pid, parent pid) of every process.
std::vector<std::pair<int, int>> Processes() {
  std::vector<std::pair<int, int>> parent_of;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto stat = ReadFile(entry.path().string() + "/stat");
    if (!stat.ok()) continue;
    const size_t close = stat->rfind(')');  // "pid (comm) state ppid ..."
    if (close == std::string::npos) continue;
    const std::vector<std::string_view> f = Split(std::string_view(*stat).substr(close + 2), ' ');
    if (f.size() < 2) continue;
    parent_of.emplace_back(std::stoi(name), std::stoi(std::string(f[1])));
  }
  return parent_of;
}

// Every process below `root` (sshd's per-connection children and what they run).
std::vector<int> Descendants(int root) {
  const std::vector<std::pair<int, int>> parent_of = Processes();
  std::vector<int> found = {root};
  for (size_t i = 0; i < found.size(); ++i) {
    for (const auto& [pid, ppid] : parent_of) {
      if (ppid == found[i]) found.push_back(pid);
    }
  }
  found.erase(found.begin());
  return found;
}

}  // namespace

bool AcceptsOnLoopback(uint16_t port) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket s(io);
  boost::system::error_code ec;
  s.connect({boost::asio::ip::make_address("127.0.0.1"), port}, ec);
  return !ec;
}

SshServer::SshServer(const std::string& dir, bool allow_forwarding) : dir_(dir) {
  for (const char* tool : {"/usr/sbin/sshd", "/usr/bin/ssh-keygen", "/usr/bin/ssh"}) {
    if (::access(tool, X_OK) != 0) {
      why_ = std::string(tool) + " is missing (openssh-server, openssh-client: scripts/setup.sh)";
      return;
    }
  }
  const passwd* pw = ::getpwuid(::geteuid());
  if (!pw) throw std::runtime_error("no passwd entry for this user");
  user_ = pw->pw_name;
  for (const char* key : {"host_key", "client_key", "wrong_key"}) {
    auto made = RunProgram("/usr/bin/ssh-keygen",
                           {"-q", "-t", "ed25519", "-N", "", "-f", dir_ + "/" + key}, dir_);
    if (made.exit_code != 0) throw std::runtime_error("ssh-keygen: " + made.err);
  }
  std::filesystem::copy_file(dir_ + "/client_key.pub", dir_ + "/authorized_keys");
  port_ = UnusedPort();
  const std::string host_pub = ReadFile(dir_ + "/host_key.pub").value();
  auto must = [](const Status& s) {
    if (!s.ok()) throw std::runtime_error(s.message());
  };
  must(WriteFileAtomic(dir_ + "/known_hosts", "[127.0.0.1]:" + std::to_string(port_) + " " +
                                                  host_pub.substr(0, host_pub.rfind(' ')) + "\n"));
  must(WriteFileAtomic(
      dir_ + "/sshd_config",
      "ListenAddress 127.0.0.1\nPort " + std::to_string(port_) + "\nHostKey " + dir_ +
          "/host_key\nAuthorizedKeysFile " + dir_ +
          "/authorized_keys\nPasswordAuthentication no\nKbdInteractiveAuthentication "
          "no\nUsePAM no\nStrictModes no\nAllowTcpForwarding " +
          (allow_forwarding ? "yes" : "no") + "\nPidFile " + dir_ + "/sshd.pid\nLogLevel ERROR\n"));
  // sshd's privilege separation directory, which a machine not serving ssh may lack.
  if (::geteuid() == 0) ::mkdir("/run/sshd", 0755);
  sshd_ = std::make_unique<Program>(
      "/usr/sbin/sshd", std::vector<std::string>{"-D", "-e", "-f", dir_ + "/sshd_config"}, dir_);
  if (!WaitFor([&] { return AcceptsOnLoopback(port_); }, 20)) {
    sshd_.reset();
    why_ = "sshd did not start on 127.0.0.1:" + std::to_string(port_);
  }
}

SshServer::~SshServer() {
  if (!sshd_) return;
  for (int pid : Descendants(sshd_->pid())) ::kill(pid, SIGTERM);
  sshd_.reset();  // SIGKILL, reaped
}

size_t SshServer::Connections() const {
  size_t n = 0;
  for (const auto& [pid, ppid] : Processes()) n += sshd_ && ppid == sshd_->pid();
  return n;
}

std::string SshServer::target() const {
  return user_ + "@127.0.0.1:" + std::to_string(port_);
}

std::vector<std::string> SshServer::ssh_options() const {
  return {"IdentityFile=" + dir_ + "/client_key", "IdentitiesOnly=yes",
          "UserKnownHostsFile=" + dir_ + "/known_hosts", "StrictHostKeyChecking=yes"};
}

std::vector<std::string> SshServer::AddArgs(const std::string& name, uint16_t agent_port) const {
  std::vector<std::string> args = {
      "agent", "add", name, "--ssh", target(), "--agent-port", std::to_string(agent_port)};
  for (const std::string& o : ssh_options()) args.insert(args.end(), {"--ssh-option", o});
  return args;
}

std::vector<std::string> SshServer::AddArgsWithWrongKey(const std::string& name,
                                                        uint16_t agent_port) const {
  std::vector<std::string> args = AddArgs(name, agent_port);
  for (std::string& a : args) {
    if (a.starts_with("IdentityFile=")) a = "IdentityFile=" + dir_ + "/wrong_key";
  }
  return args;
}

}  // namespace ktune::test
