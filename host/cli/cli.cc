#include "host/cli/cli.h"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "common/strings.h"
#include "host/remote/agent_locator.h"
#include "host/util/user_paths.h"

namespace ktune::host {

Result<cxxopts::ParseResult> ParseOptions(cxxopts::Options& options, const Args& args,
                                          std::optional<size_t> required) {
  std::vector<std::string> positionals;
  const auto groups = options.groups();
  if (std::ranges::find(groups, kArgumentsGroup) != groups.end()) {
    for (const cxxopts::HelpOptionDetails& o : options.group_help(kArgumentsGroup).options) {
      positionals.push_back(o.l.front());
    }
  }
  std::vector<std::string> storage = {"khost"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  options.parse_positional(positionals);
  try {
    auto result = options.parse(static_cast<int>(argv.size()), argv.data());
    if (!result.unmatched().empty()) {
      return InvalidArgument("unexpected argument '" + result.unmatched().front() + "'");
    }
    for (size_t i = 0; i < required.value_or(positionals.size()); ++i) {
      if (!result.count(positionals[i])) {
        return InvalidArgument("missing <" + positionals[i] + "> argument");
      }
    }
    return result;
  } catch (const cxxopts::exceptions::exception& e) {
    return InvalidArgument(e.what());
  }
}

Result<int64_t> IntegerOption(const cxxopts::ParseResult& r, const std::string& name, int64_t min,
                              int64_t max, const std::string& what) {
  const std::string text = r[name].as<std::string>();
  const Result<int64_t> v = ParseInt64(text);
  if (v.ok() && *v >= min && *v <= max) return *v;
  return InvalidArgument("--" + name + " '" + text + "': " + what + " from " + std::to_string(min) +
                         " to " + std::to_string(max));
}

namespace {

// A range's bound for people: 1000000, not 1e+06.
std::string Bound(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e15 ? std::to_string(static_cast<int64_t>(v))
                                                   : FormatDouble(v);
}

}  // namespace

Result<double> RealOption(const cxxopts::ParseResult& r, const std::string& name, double min,
                          double max, const std::string& what, bool above_min) {
  const std::string text = r[name].as<std::string>();
  const Result<double> v = ParseDouble(text);
  if (v.ok() && (above_min ? *v > min : *v >= min) && *v <= max) return *v;
  return InvalidArgument(
      "--" + name + " '" + text + "': " + what +
      (above_min ? " above " + Bound(min) + " and at most " : " from " + Bound(min) + " to ") +
      Bound(max));
}

Result<uint64_t> Uint64Option(const cxxopts::ParseResult& r, const std::string& name) {
  const std::string text = r[name].as<std::string>();
  const Result<uint64_t> v = ParseUint64(text);
  if (v.ok()) return *v;
  return InvalidArgument("--" + name + " '" + text +
                         "': a whole number from 0 to 18446744073709551615");
}

Status CheckAction(const std::string& action, const std::vector<std::string>& actions) {
  if (std::ranges::find(actions, action) != actions.end()) return Status::Ok();
  return InvalidArgument("unknown action '" + action + "' (" + Join(actions, ", ") + ")");
}

Status OptionsOnlyWith(const cxxopts::ParseResult& result, const std::string& command,
                       const std::string& given_action, const std::string& action,
                       const std::vector<std::string>& options) {
  for (const std::string& opt : options) {
    if (result.count(opt) && given_action != action) {
      return InvalidArgument("--" + opt + " goes with 'khost " + command + " " + action + "'");
    }
  }
  return Status::Ok();
}

void AddRootOption(cxxopts::Options& options) {
  options.add_options()("root", "directory holding <kernel>/run/ (the seed's layout)",
                        cxxopts::value<std::string>()->default_value("."));
}

void AddWideOption(cxxopts::Options& options) {
  options.add_options()("wide",
                        "tables in full: no column collapsed or shortened to fit the terminal "
                        "(default: its width, else $COLUMNS, else 120)");
}

void AddAgentOption(cxxopts::Options& options) {
  options.add_options()("agent",
                        "the agent: a name from khost agent add, or HOST:PORT (else "
                        "KTUNE_AGENT, the config file, or a local agentd started for this "
                        "command)",
                        cxxopts::value<std::string>()->default_value(""))(
      "token-file",
      "the agent's token, for an agent that asks for one (else KTUNE_TOKEN_FILE or the config "
      "file's token_file)",
      cxxopts::value<std::string>()->default_value(""));
}

void AddDbOption(cxxopts::Options& options) {
  options.add_options()("db",
                        "the tuning database: an SQLite file or a postgresql:// URL, 'none' for "
                        "no database (else KTUNE_DB, the config file's db, or " +
                            DefaultDbPath() + ")",
                        cxxopts::value<std::string>()->default_value(""));
}

Result<std::optional<DbChoice>> DbFor(const std::string& flag) {
  const std::string config_path = ConfigFilePath();
  KT_ASSIGN_OR_RETURN(const std::string config, ReadConfigFile(config_path));
  KT_ASSIGN_OR_RETURN(DbChoice where,
                      ChooseDb(flag, EnvOr("KTUNE_DB", ""), config, config_path, DefaultDbPath()));
  if (where.url == "none") return std::optional<DbChoice>();
  return std::optional<DbChoice>(std::move(where));
}

Result<std::unique_ptr<TuningDb>> OpenDbFor(const std::string& flag, bool create,
                                            std::string* source) {
  KT_ASSIGN_OR_RETURN(const std::optional<DbChoice> where, DbFor(flag));
  if (!where) return InvalidArgument("KTUNE_DB or the config file says none: no database");
  if (source) *source = where->source;
  return TuningDb::Open(*where, create);
}

bool WantsHelp(const Args& args) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

void PrintError(const std::string& command, const Status& status) {
  std::cerr << "khost " << command << ": " << EscapedText(status.message()) << "\n";
}

void PrintRunWarnings(const std::string& command, const LoadedRun& run) {
  for (const std::string& w : RunWarnings(run)) {
    std::cerr << "khost " << command << ": " << EscapedText(w) << "\n";
  }
}

}  // namespace ktune::host
