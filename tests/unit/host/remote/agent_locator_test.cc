#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "common/events.h"
#include "common/fs.h"
#include "host/cli/command.h"
#include "host/remote/agent_locator.h"
#include "host/results/kernel_dir.h"
#include "host/results/results_dir.h"
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
