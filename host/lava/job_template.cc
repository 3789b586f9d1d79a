#include "host/lava/job_template.h"

#include <map>

#include "common/strings.h"

namespace ktune::host {

Result<std::string> FillJobTemplate(const std::string& text, const JobValues& v,
                                    const std::string& path) {
  const std::map<std::string, std::string> values = {
      {"KTUNE_TOKEN", v.token},
      {"KTUNE_PORT", std::to_string(v.port)},
      {"KTUNE_JOB_NAME", v.job_name},
      {"KTUNE_JOB_MINUTES", std::to_string(v.job_minutes)},
      {"KTUNE_DEVICE_TYPE", v.device_type}};
  std::string out;
  size_t at = 0;
  while (true) {
    const size_t open = text.find("{{KTUNE_", at);
    if (open == std::string::npos) break;
    const size_t close = text.find("}}", open);
    const std::string name =
        text.substr(open + 2, close == std::string::npos ? std::string::npos : close - open - 2);
    const auto it = values.find(name);
    if (close == std::string::npos || it == values.end()) {
      return InvalidArgument(path + ": unknown placeholder {{" + name.substr(0, 40) +
                             (close == std::string::npos ? " (no closing }})" : "}}") +
                             " (khost fills {{KTUNE_TOKEN}}, {{KTUNE_PORT}}, "
                             "{{KTUNE_JOB_NAME}}, {{KTUNE_JOB_MINUTES}} and "
                             "{{KTUNE_DEVICE_TYPE}})");
    }
    out += text.substr(at, open - at) + it->second;
    at = close + 2;
  }
  out += text.substr(at);
  for (std::string_view line : Split(out, '\n')) {
    if (!line.starts_with("device_type:")) continue;
    std::string_view type = Trim(line.substr(12));
    if (type.size() >= 2 && (type.front() == '"' || type.front() == '\'')) {
      type = type.substr(1, type.size() - 2);
    }
    if (type != v.device_type) {
      return InvalidArgument(path + ": the job is for device type '" + std::string(type) +
                             "', not the agent's '" + v.device_type +
                             "' (write device_type: {{KTUNE_DEVICE_TYPE}})");
    }
  }
  return out;
}

Result<std::optional<HostPort>> JobAgentAddress(const std::string& job, const std::string& path) {
  constexpr std::string_view kKey = "# ktune-address:";
  for (std::string_view line : Split(job, '\n')) {
    const std::string_view l = Trim(line);
    if (!l.starts_with(kKey)) continue;
    auto hp = ParseHostPort(Trim(l.substr(kKey.size())));
    if (!hp.ok()) return hp.status().WithContext(path + ": its \"# ktune-address:\" line");
    return std::optional<HostPort>(*hp);
  }
  return std::optional<HostPort>();
}

}  // namespace ktune::host
