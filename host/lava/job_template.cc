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
      {"KTUNE_JOB_MINUTES", std::to_string(v.job_minutes)}};
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
                             "{{KTUNE_JOB_NAME}} and {{KTUNE_JOB_MINUTES}})");
    }
    out += text.substr(at, open - at) + it->second;
    at = close + 2;
  }
  return out + text.substr(at);
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
