// agent/options.h: agentd's command line as a request -- its defaults (from a fixed
// environment), each option, one clear error for each bad value, and the checks made later.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "agent/options.h"

namespace ktune::agent {
namespace {

using Action = AgentdRequest::Action;

// A machine of 16 GiB where HOME and XDG_DATA_HOME are set and agentd is not root.
const AgentdEnvironment kEnv{
    .home = "/home/k", .xdg_data_home = "/data", .root = false, .physical_memory_mib = 16384};

Result<AgentdRequest> Parse(const std::vector<std::string>& args,
                            const AgentdEnvironment& env = kEnv) {
  return ParseAgentdArgs(args, env);
}

// The message of the error `args` give, "" when they parse.
std::string ErrorOf(const std::vector<std::string>& args) {
  auto r = Parse(args);
  if (r.ok()) return "";
  CHECK(r.status().code() == ErrorCode::kInvalidArgument);
  return r.status().message();
}

// A PATH holding only sh, in /bin.
std::string FindOnlySh(const std::string& name) {
  return name == "sh" ? "/bin/sh" : "";
}

TEST_CASE("agentd options: defaults") {
  auto r = Parse({});
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
  CHECK(o.fake_system_root.empty());
  CHECK(o.exec_wrapper.empty());
  CHECK_FALSE(o.token.has_value());
  CHECK_FALSE(o.seal);
  CHECK(o.run_as == "nobody");
  CHECK(o.limits.address_space_bytes == 16384ull << 20);
  CHECK(o.limits.file_size_bytes == 1024ull << 20);
  CHECK(o.limits.processes == 0);
  CHECK(o.max_bundle_bytes == 2048ull << 20);
  CHECK(o.store_quota_bytes == 8192ull << 20);
}

TEST_CASE("agentd options: the default store follows XDG_DATA_HOME, then HOME") {
  AgentdEnvironment env = kEnv;
  env.xdg_data_home = "";
  CHECK(Parse({}, env)->server.store_dir == "/home/k/.local/share/ktune/agent");
  env.home = "";
  CHECK(Parse({}, env)->server.store_dir == "/var/lib/ktune/agent");
}

TEST_CASE("agentd options: the limits' defaults follow the user and the memory") {
  AgentdEnvironment env = kEnv;
  // As root, kernels run as --run-as with at most 1024 processes; memory unknown: no limit.
  env.root = true;
  env.physical_memory_mib = 0;
  CHECK(Parse({}, env)->server.limits.processes == 1024);
  CHECK(Parse({}, env)->server.limits.address_space_bytes == 0);
  CHECK(Parse({"--limit-nproc", "0"}, env)->server.limits.processes == 0);
  // --help shows the defaults of this environment.
  CHECK(AgentdHelp(kEnv).find("/data/ktune/agent") != std::string::npos);
  CHECK(AgentdHelp(kEnv).find("(default: 16384)") != std::string::npos);
}

TEST_CASE("agentd options: each option") {
  auto r = Parse({"--listen",
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
                  "--fake-system-root",
                  "/f",
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
  CHECK(o.fake_system_root == "/f");
  REQUIRE(o.exec_wrapper.size() == 3);  // split at spaces, empty words dropped
  CHECK(o.exec_wrapper[0] == "sh");     // found in PATH by FinishServeOptions
  CHECK(o.exec_wrapper[1] == "-c");
  CHECK(o.exec_wrapper[2] == "true");
  CHECK(o.run_as == "1234");
  CHECK(o.limits.address_space_bytes == 5ull << 20);
  CHECK(o.limits.file_size_bytes == 6ull << 20);
  CHECK(o.limits.processes == 7);
  CHECK(o.max_bundle_bytes == 8ull << 20);
  CHECK(o.store_quota_bytes == 9ull << 20);
  CHECK(Parse({"--limit-nproc", "0"})->server.limits.processes == 0);
}

TEST_CASE("agentd options: off loopback only with a token, and then sealed") {
  auto sealed = Parse({"--listen", "0.0.0.0:7000", "--token-file", "/t"});
  REQUIRE(sealed.ok());
  CHECK(sealed->token_file == "/t");
  CHECK(sealed->server.seal);
  CHECK_FALSE(sealed->server.token.has_value());  // loaded when agentd serves
  auto loopback = Parse({"--token-file", "/t"});
  REQUIRE(loopback.ok());
  CHECK_FALSE(loopback->server.seal);
  CHECK(ErrorOf({"--listen", "0.0.0.0:7000"}) ==
        "refusing to listen on 0.0.0.0:7000 without a token: off loopback, hosts must "
        "authenticate (--token-file; agentd --make-token FILE writes one)");
}

TEST_CASE("agentd options: help, version and make-token stop the parsing") {
  CHECK(Parse({"--help"})->action == Action::kHelp);
  CHECK(Parse({"-h", "stray", "--log-level", "loud"})->action == Action::kHelp);
  CHECK(Parse({"--version"})->action == Action::kVersion);
  auto token = Parse({"--make-token", "/tmp/t", "stray"});
  REQUIRE(token.ok());
  CHECK(token->action == Action::kMakeToken);
  CHECK(token->token_out == "/tmp/t");
  const std::string help = AgentdHelp(kEnv);
  CHECK(help.find("--store-quota-mb") != std::string::npos);
  CHECK(help.find("FAKE, for tests on machines without a PMU") != std::string::npos);
}

TEST_CASE("agentd options: a bad value is one clear error") {
  CHECK(ErrorOf({"stray"}) == "unexpected argument 'stray'");
  CHECK(ErrorOf({"--log-level", "loud"}) == "unknown log level 'loud'");
  CHECK(ErrorOf({"--listen", "127.0.0.1"}) == "malformed address '127.0.0.1' (expected HOST:PORT)");
  CHECK(ErrorOf({"--no-such-option"}).find("no-such-option") != std::string::npos);
  // Found by the bad-input campaign (issue 33): numbers named no option ("Argument 'lots' failed
  // to parse"), and a size in MiB shifted into bytes wrapped around (a quota of 0, which evicts
  // every bundle).
  CHECK(ErrorOf({"--limit-as-mb", "lots"}) ==
        "--limit-as-mb 'lots': a whole number from 0 to 1099511627776");
  CHECK(ErrorOf({"--store-quota-mb", "17592186044416"}) ==
        "--store-quota-mb '17592186044416': a whole number from 0 to 1099511627776");
  CHECK(ErrorOf({"--limit-nproc", "-2"}) ==
        "--limit-nproc '-2': a whole number from -1 to 2147483648");
  CHECK(ErrorOf({"--fake-counter-budget", "x"}) ==
        "--fake-counter-budget 'x': a whole number from -2147483648 to 2147483647");
  CHECK(Parse({"--store-quota-mb", "1099511627776"})->server.store_quota_bytes == 1ull << 60);
  // In the order agentd reports them: the first one found.
  CHECK(ErrorOf({"stray", "--log-level", "loud"}) == "unexpected argument 'stray'");
  CHECK(ErrorOf({"--log-level", "loud", "--listen", "x"}) == "unknown log level 'loud'");
  CHECK(ErrorOf({"--listen", "0.0.0.0:1", "--fake-counter-budget", "-1"}).starts_with("refusing"));
}

TEST_CASE("agentd options: the budget and the exec wrapper are checked later, in that order") {
  // The parser takes them as they are: agentd checks them once its token is loaded and, with
  // --daemon, in the detached child (main.cc).
  auto bad = Parse({"--fake-counter-budget", "-1", "--exec-wrapper", "no-such-tool-ktune"});
  REQUIRE(bad.ok());
  CHECK(bad->server.fake_counter_budget == -1);
  Status s = FinishServeOptions(bad->server, FindOnlySh);
  CHECK(s.code() == ErrorCode::kInvalidArgument);
  CHECK(s.message() == "--fake-counter-budget must be 0 or more");
  bad->server.fake_counter_budget = 0;
  s = FinishServeOptions(bad->server, FindOnlySh);
  CHECK(s.code() == ErrorCode::kInvalidArgument);
  CHECK(s.message() == "--exec-wrapper: no-such-tool-ktune is not an executable in PATH");

  auto good = Parse({"--exec-wrapper", "sh -c  true"});
  REQUIRE(good.ok());
  REQUIRE(FinishServeOptions(good->server, FindOnlySh).ok());
  CHECK(good->server.exec_wrapper == std::vector<std::string>{"/bin/sh", "-c", "true"});
  auto none = Parse({});
  REQUIRE(FinishServeOptions(none->server, FindOnlySh).ok());
  CHECK(none->server.exec_wrapper.empty());
}

}  // namespace
}  // namespace ktune::agent
