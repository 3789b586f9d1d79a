#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "common/events.h"
#include "common/fs.h"
#include "host/remote/agent_locator.h"
#include "host/remote/agent_registry.h"
#include "host/remote/deploy.h"
#include "host/remote/ssh.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
#include "host/util/elf_symbols.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

TEST_CASE("the agent address comes from --agent, then KTUNE_AGENT, then the config file") {
  const std::string config = R"({"agent": "cfg:3"})";
  CHECK(ChooseAgent("flag:1", "env:2", config, "c.json")->address->host == "flag");
  CHECK(ChooseAgent("", "env:2", config, "c.json")->address->host == "env");
  auto from_file = ChooseAgent("", "", config, "c.json");
  CHECK(from_file->address->port == 3);
  CHECK(from_file->source == "c.json");
  CHECK_FALSE(ChooseAgent("", "", "", "c.json")->address.has_value());
  CHECK_FALSE(ChooseAgent("", "", "{}", "c.json")->address.has_value());
  CHECK(ChooseAgent("", "", "{bad", "c.json").status().message().find("c.json") !=
        std::string::npos);
  CHECK(ChooseAgent("nope", "", "", "c.json").status().message().find("--agent") !=
        std::string::npos);
  CHECK_FALSE(ChooseAgent("", "", R"({"agent": 5})", "c.json").ok());
  // nlohmann throws out_of_range, not parse_error, for a number beyond a double's range.
  CHECK(ChooseAgent("", "", R"({"agent": 1e400})", "c.json")
            .status()
            .message()
            .find("c.json is not valid JSON") != std::string::npos);
}

TEST_CASE("the token file comes from --token-file, then KTUNE_TOKEN_FILE, then the config file") {
  const std::string config = R"({"agent": "h:3", "token_file": "/etc/ktune/token"})";
  CHECK(ChooseTokenFile("flag", "env", "", config, "c.json").value() == "flag");
  CHECK(ChooseTokenFile("", "env", "", config, "c.json").value() == "env");
  CHECK(ChooseTokenFile("", "", "", config, "c.json").value() == "/etc/ktune/token");
  CHECK(ChooseTokenFile("", "", "/k1.token", config, "c.json").value() == "/k1.token");
  CHECK(ChooseTokenFile("", "env", "/k1.token", config, "c.json").value() == "env");
  CHECK(ChooseTokenFile("", "", "", R"({"agent": "h:3"})", "c.json").value().empty());
  CHECK(ChooseTokenFile("", "", "", "", "c.json").value().empty());
  CHECK(ChooseTokenFile("", "", "", R"({"token_file": 1})", "c.json").status().message() ==
        "c.json: \"token_file\" must be a path");
  CHECK(ChooseTokenFile("", "", "", R"([1e400])", "c.json")
            .status()
            .message()
            .find("c.json is not valid JSON") != std::string::npos);
}

TEST_CASE("--agent NAME resolves through the registry; an unknown name is an error") {
  const std::string config =
      R"({"agent": "k1", "agents": {"k1": {"ssh": "me@k1"}, "x86": {"addr": "h:5"}}})";
  auto k1 = ChooseAgent("", "", config, "c.json");
  REQUIRE(k1.ok());
  REQUIRE(k1->registered.has_value());
  CHECK(k1->registered->ssh->host == "k1");
  CHECK_FALSE(k1->address.has_value());
  auto x86 = ChooseAgent("x86", "", config, "c.json");
  REQUIRE(x86.ok());
  CHECK(x86->address->port == 5);
  CHECK(ChooseAgent("", "x86", config, "c.json")->source == "KTUNE_AGENT");
  const Status unknown = ChooseAgent("k2", "", config, "c.json").status();
  CHECK(unknown.code() == ErrorCode::kNotFound);
  CHECK(unknown.message() ==
        "--agent: no agent named 'k2' (khost agent list shows the registered ones; an address "
        "is HOST:PORT)");
  // An address needs no registry, and a broken config file does not stop it.
  CHECK(ChooseAgent("h:1", "", "{broken", "c.json")->address->port == 1);
}

TEST_CASE("the local agent's store: a path others may search, made or still to be made") {
  test::UnitTempDir tmp("ktune-unit", 0711);
  std::filesystem::create_directories(tmp / "open/inner");
  std::filesystem::create_directories(tmp / "closed/inner");
  std::filesystem::permissions(tmp / "closed", std::filesystem::perms(0700));
  CHECK(SearchableByOthers(tmp / "open/inner"));
  CHECK(SearchableByOthers(tmp / "open/inner/not/made/yet"));
  CHECK_FALSE(SearchableByOthers(tmp / "closed/inner/store"));
  CHECK_FALSE(SearchableByOthers(tmp / "closed"));
}

TEST_CASE("the config file: none is empty, one that exists but cannot be read is an error") {
  test::UnitTempDir dir;
  CHECK(ReadConfigFile(dir / "none.json").value().empty());
  REQUIRE(WriteConfigFile(dir / "sub/config.json", nlohmann::json{{"agent", "h:1"}}).ok());
  CHECK(ReadConfigFile(dir / "sub/config.json").value() == "{\n  \"agent\": \"h:1\"\n}\n");
  // A directory where the file should be exists and cannot be read as one.
  const Result<std::string> unreadable = ReadConfigFile(dir / "sub");
  REQUIRE_FALSE(unreadable.ok());
  CHECK(unreadable.status().message().find(dir / "sub") != std::string::npos);
}

}  // namespace
}  // namespace ktune::host
