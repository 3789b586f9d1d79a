// agent/options.h: agentd's command line as a request -- its defaults, each option, and one clear
// error for each bad value.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "agent/options.h"
#include "common/fs.h"

namespace ktune::agent {
namespace {

using Action = AgentdRequest::Action;

// Sets an environment variable for one test, and restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The message of the error `args` give, "" when they parse.
std::string ErrorOf(const std::vector<std::string>& args) {
  auto r = ParseAgentdArgs(args);
  if (r.ok()) return "";
  CHECK(r.status().code() == ErrorCode::kInvalidArgument);
  return r.status().message();
}

TEST_CASE("agentd options: defaults") {
  ScopedEnv xdg("XDG_DATA_HOME", "/data");
  auto r = ParseAgentdArgs({});
  REQUIRE(r.ok());
  CHECK(r->action == Action::kServe);
  CHECK(r->log_level == LogLevel::kInfo);
  CHECK_FALSE(r->daemon);
  CHECK(r->token_file.empty());
  const AgentOptions& o = r->server;
  CHECK(o.listen.host == "127.0.0.1");
  CHECK(o.listen.port == kDefaultAgentPort);
  CHECK(o.store_dir == "/data/ktune/agent");
  CHECK(o.fake_counter_budget == 0);
  CHECK(o.fake_cpuinfo.empty());
  CHECK(o.exec_wrapper.empty());
  CHECK_FALSE(o.token.has_value());
  CHECK_FALSE(o.seal);
  CHECK(o.run_as == "nobody");
  const uint64_t memory = static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
                          static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  CHECK(o.limits.address_space_bytes == (memory >> 20) << 20);
  CHECK(o.limits.file_size_bytes == 1024ull << 20);
  CHECK(o.limits.processes == (::geteuid() == 0 ? 1024u : 0u));
  CHECK(o.max_bundle_bytes == 2048ull << 20);
  CHECK(o.store_quota_bytes == 8192ull << 20);
}

TEST_CASE("agentd options: the default store follows XDG_DATA_HOME, then HOME") {
  {
    ScopedEnv xdg("XDG_DATA_HOME", nullptr);
    ScopedEnv home("HOME", "/home/k");
    CHECK(ParseAgentdArgs({})->server.store_dir == "/home/k/.local/share/ktune/agent");
  }
  ScopedEnv xdg("XDG_DATA_HOME", "");
  ScopedEnv home("HOME", nullptr);
  CHECK(ParseAgentdArgs({})->server.store_dir == "/var/lib/ktune/agent");
}

TEST_CASE("agentd options: each option") {
  auto r = ParseAgentdArgs({"--listen",
                            "127.0.0.1:0",
                            "--store",
                            "/s",
                            "--log-level",
                            "debug",
                            "--daemon",
                            "--fake-counter-budget",
                            "3",
                            "--fake-cpuinfo",
                            "/c",
                            "--exec-wrapper",
                            "sh -c  true",
                            "--run-as",
                            "1234",
                            "--limit-as-mb",
                            "5",
                            "--limit-fsize-mb",
                            "6",
                            "--limit-nproc",
                            "7",
                            "--max-bundle-mb",
                            "8",
                            "--store-quota-mb",
                            "9"});
  REQUIRE(r.ok());
  CHECK(r->action == Action::kServe);
  CHECK(r->log_level == LogLevel::kDebug);
  CHECK(r->daemon);
  const AgentOptions& o = r->server;
  CHECK(o.listen.port == 0);
  CHECK(o.store_dir == "/s");
  CHECK(o.fake_counter_budget == 3);
  CHECK(o.fake_cpuinfo == "/c");
  REQUIRE(o.exec_wrapper.size() == 3);  // split at spaces, empty words dropped
  CHECK(o.exec_wrapper[0] == FindInPath("sh"));
  CHECK(o.exec_wrapper[0].front() == '/');
  CHECK(o.exec_wrapper[1] == "-c");
  CHECK(o.exec_wrapper[2] == "true");
  CHECK(o.run_as == "1234");
  CHECK(o.limits.address_space_bytes == 5ull << 20);
  CHECK(o.limits.file_size_bytes == 6ull << 20);
  CHECK(o.limits.processes == 7);
  CHECK(o.max_bundle_bytes == 8ull << 20);
  CHECK(o.store_quota_bytes == 9ull << 20);
  CHECK(ParseAgentdArgs({"--limit-nproc", "0"})->server.limits.processes == 0);
}

TEST_CASE("agentd options: off loopback only with a token, and then sealed") {
  auto sealed = ParseAgentdArgs({"--listen", "0.0.0.0:7000", "--token-file", "/t"});
  REQUIRE(sealed.ok());
  CHECK(sealed->token_file == "/t");
  CHECK(sealed->server.seal);
  CHECK_FALSE(sealed->server.token.has_value());  // loaded when agentd serves
  auto loopback = ParseAgentdArgs({"--token-file", "/t"});
  REQUIRE(loopback.ok());
  CHECK_FALSE(loopback->server.seal);
  CHECK(ErrorOf({"--listen", "0.0.0.0:7000"}) ==
        "refusing to listen on 0.0.0.0:7000 without a token: off loopback, hosts must "
        "authenticate (--token-file; agentd --make-token FILE writes one)");
}

TEST_CASE("agentd options: help, version and make-token stop the parsing") {
  CHECK(ParseAgentdArgs({"--help"})->action == Action::kHelp);
  CHECK(ParseAgentdArgs({"-h", "stray", "--log-level", "loud"})->action == Action::kHelp);
  CHECK(ParseAgentdArgs({"--version"})->action == Action::kVersion);
  auto token = ParseAgentdArgs({"--make-token", "/tmp/t", "stray"});
  REQUIRE(token.ok());
  CHECK(token->action == Action::kMakeToken);
  CHECK(token->token_out == "/tmp/t");
  const std::string help = AgentdHelp();
  CHECK(help.find("--store-quota-mb") != std::string::npos);
  CHECK(help.find("FAKE, for tests on machines without a PMU") != std::string::npos);
}

TEST_CASE("agentd options: a bad value is one clear error") {
  CHECK(ErrorOf({"stray"}) == "unexpected argument 'stray'");
  CHECK(ErrorOf({"--log-level", "loud"}) == "unknown log level 'loud'");
  CHECK(ErrorOf({"--fake-counter-budget", "-1"}) == "--fake-counter-budget must be 0 or more");
  CHECK(ErrorOf({"--exec-wrapper", "no-such-tool-ktune"}) ==
        "--exec-wrapper: no-such-tool-ktune is not an executable in PATH");
  CHECK(ErrorOf({"--listen", "127.0.0.1"}) == "malformed address '127.0.0.1' (expected HOST:PORT)");
  CHECK(ErrorOf({"--no-such-option"}).find("no-such-option") != std::string::npos);
  CHECK(ErrorOf({"--limit-as-mb", "lots"}).find("lots") != std::string::npos);
  CHECK(ErrorOf({"--fake-counter-budget", "x"}).find("x") != std::string::npos);
}

}  // namespace
}  // namespace ktune::agent
