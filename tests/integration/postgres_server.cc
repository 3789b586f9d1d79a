#include "tests/integration/postgres_server.h"

#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "common/fs.h"
#include "host/db/sql.h"
#include "tests/integration/harness.h"

namespace ktune::test {
namespace fs = std::filesystem;

namespace {

// Debian's server binaries: /usr/lib/postgresql/<major>/bin, the newest.
std::string ServerBinDir() {
  std::string found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    if (fs::exists(e.path() / "bin" / "pg_ctl") && e.path().string() > found) {
      found = e.path().string();
    }
  }
  return found.empty() ? "" : found + "/bin";
}

}  // namespace

CommandResult PostgresServer::Run(const std::string& tool, std::vector<std::string> args) const {
  std::vector<std::string> argv = as_user_;
  argv.push_back(bin_ + "/" + tool);
  argv.insert(argv.end(), args.begin(), args.end());
  const std::string exe = argv.front();
  argv.erase(argv.begin());
  return RunProgram(exe, argv, "/tmp", {{"LC_ALL", "C"}});
}

CommandResult PostgresServer::StartServer() {
  // The socket alone, in the directory; fsync off: a test's server need not survive a power cut.
  CommandResult r = Run("pg_ctl", {"-D", dir_ + "/data", "-l", dir_ + "/log", "-w", "-o",
                                   "-k " + dir_ + " -c listen_addresses= -c fsync=off", "start"});
  running_ = r.exit_code == 0;
  return r;
}

std::unique_ptr<PostgresServer> PostgresServer::Start(std::string* why_not) {
  std::unique_ptr<PostgresServer> s(new PostgresServer);
  s->bin_ = ServerBinDir();
  if (s->bin_.empty()) {
    *why_not = "no PostgreSQL server binaries under /usr/lib/postgresql (postgresql-15)";
    return nullptr;
  }
  std::string tmpl = (fs::temp_directory_path() / "ktune-pg-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) {
    *why_not = "cannot make a temporary directory";
    return nullptr;
  }
  s->dir_ = tmpl;
  if (::geteuid() == 0) {
    const passwd* nobody = ::getpwnam("nobody");
    if (!nobody || ::chown(s->dir_.c_str(), nobody->pw_uid, nobody->pw_gid) != 0) {
      *why_not = "cannot give " + s->dir_ + " to nobody";
      return nullptr;
    }
    s->as_user_ = {"/usr/bin/setpriv", "--reuid=nobody",
                   "--regid=" + std::to_string(nobody->pw_gid), "--clear-groups", "--"};
  }
  auto init = s->Run(
      "initdb", {"-D", s->dir_ + "/data", "-A", "trust", "-U", kUser, "--no-sync", "-E", "UTF8"});
  if (init.exit_code != 0) {
    *why_not = "initdb failed: " + init.err;
    return nullptr;
  }
  if (auto start = s->StartServer(); start.exit_code != 0) {
    *why_not = "pg_ctl start failed: " + start.err;
    return nullptr;
  }
  return s;
}

PostgresServer::~PostgresServer() {
  Stop();
  if (!dir_.empty()) RemoveTree(dir_);
}

std::string PostgresServer::Url(const std::string& database) const {
  return std::string("postgresql://") + kUser + "@/" + database + "?host=" + dir_;
}

std::string PostgresServer::NewDatabase() {
  const std::string name = "t" + std::to_string(++databases_);
  auto admin = host::OpenPostgres(Url("postgres"));
  if (!admin.ok() || !(*admin)->Exec("CREATE DATABASE " + name).ok()) return "";
  return Url(name);
}

void PostgresServer::Stop() {
  if (running_) Run("pg_ctl", {"-D", dir_ + "/data", "-m", "fast", "-w", "stop"});
  running_ = false;
}

bool PostgresServer::Restart() {
  return StartServer().exit_code == 0;
}

}  // namespace ktune::test
