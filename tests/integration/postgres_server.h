// A PostgreSQL server of the test's own, as the tuning database's tests need one: initdb into a
// temporary directory and pg_ctl start listening on a Unix socket there alone (no TCP port), run
// as an unprivileged user (nobody when the tests run as root: initdb refuses root), stopped
// (pg_ctl -m fast) and removed when the object goes. About 2 s. No systemd, no cluster of the
// machine's: the binaries of Debian's postgresql-15 are enough.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tests/integration/harness.h"

namespace ktune::test {

class PostgresServer {
 public:
  // Started, or null with `why_not` saying why (the binaries missing, initdb failing).
  static std::unique_ptr<PostgresServer> Start(std::string* why_not);
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // A new, empty database on the server, as a URL khost takes (--db).
  std::string NewDatabase();
  // Stops the server (a server that is down), and starts it again.
  void Stop();
  bool Restart();

  // The server's superuser; trusted on the socket.
  static constexpr const char* kUser = "ktune";

 private:
  PostgresServer() = default;
  std::string Url(const std::string& database) const;
  // A server binary, run as the server's user.
  CommandResult Run(const std::string& tool, std::vector<std::string> args) const;
  CommandResult StartServer();
  std::string dir_, bin_;
  std::vector<std::string> as_user_;  // setpriv to nobody, as root
  size_t databases_ = 0;
  bool running_ = false;
};

}  // namespace ktune::test
