#include "host/lava/lava_api.h"

#include <nlohmann/json.hpp>

#include "host/lava/http.h"

namespace ktune::host {
namespace {

constexpr long kCallTimeoutS = 30;

// The first line of `text`, at most 200 bytes: what an error quotes of a body.
std::string Excerpt(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

// LAVA's own words in an error's body ({"message": ...} or {"detail": ...}), else its excerpt.
std::string Said(const std::string& body) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  for (const char* key : {"message", "detail"}) {
    if (j.is_object() && j.contains(key) && j[key].is_string()) return j[key].get<std::string>();
  }
  return Excerpt(body);
}

std::string StringOr(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

}  // namespace

struct LavaApi::Answer {
  long status;
  std::string body;
};

Result<LavaJob> ParseLavaJob(const std::string& json, const std::string& where) {
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("id") || !j["id"].is_number_integer() || !j.contains("state") ||
      !j["state"].is_string() || !j.contains("health") || !j["health"].is_string()) {
    return ProtocolError(where + ": not a LAVA job (" + Excerpt(json) + ")");
  }
  LavaJob job;
  job.id = j["id"].get<int64_t>();
  job.state = j["state"].get<std::string>();
  job.health = j["health"].get<std::string>();
  job.device = StringOr(j, "actual_device");
  job.failure_comment = StringOr(j, "failure_comment");
  return job;
}

LavaApi::LavaApi(std::string url, std::string token)
    : url_(std::move(url)), token_(std::move(token)) {
  while (!url_.empty() && url_.back() == '/') url_.pop_back();
}

Result<LavaApi::Answer> LavaApi::Call(const std::string& path, const std::string* post_json,
                                      long timeout_s) const {
  HttpRequest r{.url = url_ + "/api/v0.2/" + path, .timeout_s = timeout_s};
  r.headers.push_back("Accept: application/json");
  if (!token_.empty()) r.headers.push_back("Authorization: Token " + token_);
  if (post_json) {
    r.post = true;
    r.body = *post_json;
    r.headers.push_back("Content-Type: application/json");
  }
  auto response = SendHttp(r);
  if (!response.ok()) return response.status().WithContext("LAVA at " + url_);
  if (response->status == 401 || response->status == 403) {
    return Unauthenticated("LAVA at " + url_ + " refused the API token (HTTP " +
                           std::to_string(response->status) + ": " + Said(response->body) +
                           "); the token file is named with khost agent add --token-file");
  }
  return Answer{response->status, std::move(response->body)};
}

Result<int64_t> LavaApi::Submit(const std::string& definition) const {
  const std::string body = nlohmann::json{{"definition", definition}}.dump();
  KT_ASSIGN_OR_RETURN(const Answer a, Call("jobs/", &body, kCallTimeoutS));
  if (a.status == 400) {
    return InvalidArgument("LAVA at " + url_ + " refused the job: " + Said(a.body));
  }
  const nlohmann::json j = nlohmann::json::parse(a.body, nullptr, /*allow_exceptions=*/false);
  if (a.status / 100 != 2 || !j.is_object() || !j.contains("job_ids") || !j["job_ids"].is_array() ||
      j["job_ids"].size() != 1 || !j["job_ids"][0].is_number_integer()) {
    return ProtocolError("LAVA at " + url_ + " answered a job's submission with HTTP " +
                         std::to_string(a.status) + ": " + Excerpt(a.body));
  }
  return j["job_ids"][0].get<int64_t>();
}

Result<LavaJob> LavaApi::Job(int64_t id) const {
  KT_ASSIGN_OR_RETURN(const Answer a,
                      Call("jobs/" + std::to_string(id) + "/", nullptr, kCallTimeoutS));
  if (a.status == 404) return NotFound("LAVA at " + url_ + " has no job " + std::to_string(id));
  if (a.status != 200) {
    return Unavailable("LAVA at " + url_ + " answered HTTP " + std::to_string(a.status) +
                       " for job " + std::to_string(id) + ": " + Excerpt(a.body));
  }
  return ParseLavaJob(a.body, "LAVA at " + url_ + ", job " + std::to_string(id));
}

Result<std::vector<LavaLogLine>> LavaApi::Log(int64_t id, size_t from, size_t* next) const {
  *next = from;
  KT_ASSIGN_OR_RETURN(const Answer a,
                      Call("jobs/" + std::to_string(id) + "/logs/?start=" + std::to_string(from),
                           nullptr, kCallTimeoutS));
  if (a.status == 404) return std::vector<LavaLogLine>{};  // nothing written yet
  if (a.status != 200) {
    return Unavailable("LAVA at " + url_ + " answered HTTP " + std::to_string(a.status) +
                       " for job " + std::to_string(id) + "'s log: " + Excerpt(a.body));
  }
  size_t lines = 0;
  std::vector<LavaLogLine> out = ParseLavaLog(a.body, &lines);
  *next = from + lines;
  return out;
}

Result<size_t> LavaApi::QueuedBefore(int64_t id, const std::string& device_type) const {
  KT_ASSIGN_OR_RETURN(const Answer a,
                      Call("jobs/?state=Submitted&requested_device_type=" + device_type +
                               "&id__lt=" + std::to_string(id) + "&limit=1",
                           nullptr, kCallTimeoutS));
  const nlohmann::json j = nlohmann::json::parse(a.body, nullptr, /*allow_exceptions=*/false);
  if (a.status != 200 || !j.is_object() || !j.contains("count") ||
      !j["count"].is_number_unsigned()) {
    return Unavailable("LAVA at " + url_ + " answered HTTP " + std::to_string(a.status) +
                       " for the queue of " + device_type + ": " + Excerpt(a.body));
  }
  return j["count"].get<size_t>();
}

Status LavaApi::Cancel(int64_t id) const {
  KT_ASSIGN_OR_RETURN(const Answer a,
                      Call("jobs/" + std::to_string(id) + "/cancel/", nullptr, kCallTimeoutS));
  if (a.status != 200) {
    return Unavailable("LAVA at " + url_ + " did not cancel job " + std::to_string(id) + " (HTTP " +
                       std::to_string(a.status) + ": " + Said(a.body) + ")");
  }
  return Status::Ok();
}

}  // namespace ktune::host
