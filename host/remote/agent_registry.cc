#include "host/remote/agent_registry.h"

#include <algorithm>
#include <cctype>

#include "common/strings.h"

namespace ktune::host {

using nlohmann::json;

namespace {

// Characters ssh and a shell take as they are; a leading '-' would read as an ssh option.
bool PlainWord(std::string_view s, std::string_view extra = "") {
  if (s.empty() || s.front() == '-') return false;
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
           extra.find(c) != std::string_view::npos;
  });
}

Result<uint16_t> ParsePort(std::string_view text, const std::string& what) {
  auto n = ParseUint64(text);
  if (!n.ok() || *n < 1 || *n > 65535) {
    return InvalidArgument(what + ": port '" + std::string(text) + "' is not 1-65535");
  }
  return static_cast<uint16_t>(*n);
}

// A LAVA entry's keys besides "lava" and "token_file".
Status ReadLava(const json& entry, const std::string& where, LavaSource& lava) {
  auto text = [&](const char* key, std::string& out) -> Status {
    if (!entry.contains(key) || !entry.at(key).is_string() || entry.at(key).empty()) {
      return InvalidArgument(where + ": \"" + key + "\" must be a non-empty string");
    }
    out = entry.at(key).get<std::string>();
    return Status::Ok();
  };
  KT_RETURN_IF_ERROR(text("device_type", lava.device_type));
  KT_RETURN_IF_ERROR(ValidateLavaDeviceType(lava.device_type).WithContext(where));
  KT_RETURN_IF_ERROR(text("job_template", lava.job_template));
  auto whole = [&](const char* key, int64_t low, int64_t high, int64_t& out) -> Status {
    if (!entry.contains(key)) return Status::Ok();
    const json& v = entry.at(key);
    if (!v.is_number_integer() || v.get<int64_t>() < low || v.get<int64_t>() > high) {
      return InvalidArgument(where + ": \"" + key + "\" must be a whole number from " +
                             std::to_string(low) + " to " + std::to_string(high));
    }
    out = v.get<int64_t>();
    return Status::Ok();
  };
  int64_t boards = static_cast<int64_t>(lava.boards);
  KT_RETURN_IF_ERROR(whole("boards", 1, kMaxLavaBoards, boards));
  lava.boards = static_cast<size_t>(boards);
  return whole("job_minutes", 1, kMaxLavaJobMinutes, lava.job_minutes);
}

// The entry's "agent_port" and "ssh_options" (an ssh board's).
Status ReadSshExtras(const json& entry, const std::string& where, RegisteredAgent& a) {
  if (entry.contains("agent_port")) {
    const json& p = entry.at("agent_port");
    if (!p.is_number_unsigned() || p.get<uint64_t>() < 1 || p.get<uint64_t>() > 65535) {
      return InvalidArgument(where + ": \"agent_port\" must be a port, 1-65535");
    }
    a.agent_port = static_cast<uint16_t>(p.get<uint64_t>());
  }
  if (entry.contains("ssh_options")) {
    const json& o = entry.at("ssh_options");
    if (!o.is_array()) return InvalidArgument(where + ": \"ssh_options\" must be a list");
    for (const json& x : o) {
      if (!x.is_string() || x.get<std::string>().find('=') == std::string::npos) {
        return InvalidArgument(where + ": each ssh option is a \"KEY=VALUE\" string");
      }
      a.ssh_options.push_back(x.get<std::string>());
    }
  }
  return Status::Ok();
}

}  // namespace

Status ValidateLavaDeviceType(std::string_view name) {
  if (name.size() > 100 || !PlainWord(name)) {
    return InvalidArgument("LAVA device type '" + std::string(name) +
                           "': 1-100 letters, digits, '.', '_' or '-'");
  }
  return Status::Ok();
}

std::string SshTarget::ToString() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return (user.empty() ? "" : user + "@") + h + (port ? ":" + std::to_string(port) : "");
}

std::string SshTarget::Destination() const {
  return (user.empty() ? "" : user + "@") + host;
}

Result<SshTarget> ParseSshTarget(std::string_view text) {
  const std::string what = "ssh target '" + std::string(text) + "'";
  SshTarget t;
  if (const size_t at = text.find('@'); at != std::string_view::npos) {
    t.user = std::string(text.substr(0, at));
    if (!PlainWord(t.user)) return InvalidArgument(what + ": bad user name");
    text.remove_prefix(at + 1);
  }
  std::string_view port;
  if (text.starts_with("[")) {  // [v6]:port
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return InvalidArgument(what + ": no closing ']'");
    t.host = std::string(text.substr(1, close - 1));
    text.remove_prefix(close + 1);
    if (!text.empty()) {
      if (text.front() != ':') return InvalidArgument(what + ": text after ']'");
      port = text.substr(1);
    }
    if (!PlainWord(t.host, ":")) return InvalidArgument(what + ": bad host");
  } else {
    const size_t colon = text.find(':');
    t.host = std::string(text.substr(0, colon));
    if (colon != std::string_view::npos) port = text.substr(colon + 1);
    if (!PlainWord(t.host)) return InvalidArgument(what + ": bad host");
  }
  if (!port.empty() || text.ends_with(":")) {
    KT_ASSIGN_OR_RETURN(t.port, ParsePort(port, what));
  }
  return t;
}

std::string RegisteredAgent::Describe() const {
  if (lava) {
    return "LAVA " + lava->url + ", " + std::to_string(lava->boards) + " × " + lava->device_type +
           ", job " + lava->job_template;
  }
  if (ssh) {
    return "ssh " + ssh->ToString() + ", agentd on its port " + std::to_string(agent_port);
  }
  return addr ? addr->ToString() + (token_file.empty() ? "" : ", token " + token_file) : "?";
}

Status ValidateAgentName(std::string_view name) {
  if (name.size() > 64 || !PlainWord(name) || name.front() == '.') {
    return InvalidArgument("agent name '" + std::string(name) +
                           "': 1-64 letters, digits, '.', '_' or '-', not starting with '-' or "
                           "'.'");
  }
  return Status::Ok();
}

Result<json> ParseConfigText(const std::string& text, const std::string& path) {
  if (text.empty()) return json::object();
  try {
    json doc = json::parse(text);
    if (!doc.is_object()) return InvalidArgument(path + " must hold a JSON object");
    return doc;
  } catch (const json::exception& e) {
    return InvalidArgument(path + " is not valid JSON: " + e.what());
  }
}

Result<std::vector<RegisteredAgent>> ReadRegistry(const json& config, const std::string& path) {
  std::vector<RegisteredAgent> agents;
  if (!config.contains("agents")) return agents;
  const json& all = config.at("agents");
  if (!all.is_object()) return InvalidArgument(path + ": \"agents\" must be an object");
  for (const auto& [name, entry] : all.items()) {
    const std::string where = path + ": agent " + name;
    KT_RETURN_IF_ERROR(ValidateAgentName(name).WithContext(path));
    if (!entry.is_object()) return InvalidArgument(where + " must be an object");
    RegisteredAgent a;
    a.name = name;
    auto text = [&](const char* key) -> Result<std::string> {
      if (!entry.contains(key)) return std::string();
      if (!entry.at(key).is_string()) {
        return InvalidArgument(where + ": \"" + key + "\" must be a string");
      }
      return entry.at(key).get<std::string>();
    };
    KT_ASSIGN_OR_RETURN(const std::string addr, text("addr"));
    KT_ASSIGN_OR_RETURN(const std::string ssh, text("ssh"));
    KT_ASSIGN_OR_RETURN(const std::string lava, text("lava"));
    KT_ASSIGN_OR_RETURN(a.token_file, text("token_file"));
    if (!addr.empty() + !ssh.empty() + !lava.empty() != 1) {
      return InvalidArgument(where + ": needs one of \"addr\", \"ssh\" or \"lava\"");
    }
    if (!addr.empty()) {
      auto hp = ParseHostPort(addr);
      if (!hp.ok()) return hp.status().WithContext(where);
      a.addr = *hp;
    } else if (!ssh.empty()) {
      auto t = ParseSshTarget(ssh);
      if (!t.ok()) return t.status().WithContext(where);
      a.ssh = *t;
    } else {
      a.lava = LavaSource();
      a.lava->url = lava;
      KT_RETURN_IF_ERROR(ReadLava(entry, where, *a.lava));
    }
    KT_RETURN_IF_ERROR(ReadSshExtras(entry, where, a));
    agents.push_back(std::move(a));
  }
  return agents;  // nlohmann's objects iterate in key order
}

std::optional<RegisteredAgent> FindAgent(const std::vector<RegisteredAgent>& agents,
                                         std::string_view name) {
  for (const RegisteredAgent& a : agents) {
    if (a.name == name) return a;
  }
  return std::nullopt;
}

Result<json> WithAgent(json config, const RegisteredAgent& agent, bool replace) {
  KT_RETURN_IF_ERROR(ValidateAgentName(agent.name));
  if (config.contains("agents") && !config["agents"].is_object()) {
    return InvalidArgument("\"agents\" in the config file is not an object");
  }
  json& all = config["agents"];
  if (all.contains(agent.name) && !replace) {
    return InvalidArgument("agent " + agent.name + " is already registered (khost agent remove " +
                           agent.name + ", or add it again with --replace)");
  }
  json entry = json::object();
  if (agent.lava) {
    const LavaSource& l = *agent.lava;
    entry = {{"lava", l.url},
             {"device_type", l.device_type},
             {"boards", l.boards},
             {"job_template", l.job_template},
             {"job_minutes", l.job_minutes}};
    if (!agent.token_file.empty()) entry["token_file"] = agent.token_file;
  } else if (agent.ssh) {
    entry["ssh"] = agent.ssh->ToString();
    if (agent.agent_port != kDefaultAgentPort) entry["agent_port"] = agent.agent_port;
    if (!agent.ssh_options.empty()) entry["ssh_options"] = agent.ssh_options;
  } else if (agent.addr) {
    entry["addr"] = agent.addr->ToString();
    if (!agent.token_file.empty()) entry["token_file"] = agent.token_file;
  } else {
    return InvalidArgument("agent " + agent.name +
                           " needs an address, an ssh target or a LAVA lab");
  }
  all[agent.name] = std::move(entry);
  return config;
}

Result<json> WithoutAgent(json config, const std::string& name) {
  if (!config.contains("agents") || !config["agents"].is_object() ||
      !config["agents"].contains(name)) {
    return NotFound("no agent named " + name + " (khost agent list)");
  }
  config["agents"].erase(name);
  if (config.contains("agent") && config["agent"] == name) config.erase("agent");
  return config;
}

}  // namespace ktune::host
