// The calls khost makes to a LAVA lab's REST API (v0.2, lava-server 2023.01), each one blocking
// request with the user's API token ("Authorization: Token T"): submit a job, read its state and
// its log, its place in the queue, cancel it. Every failure is one line naming the lab and what
// it said: a refused token, a refused job (LAVA's own message), an unknown job, a lab that does
// not answer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/lava/lava_log.h"

namespace ktune::host {

// A job as the API shows it.
struct LavaJob {
  int64_t id = 0;
  std::string state;   // Submitted, Scheduling, Scheduled, Running, Canceling, Finished
  std::string health;  // Unknown, Complete, Incomplete, Canceled
  std::string device;  // the device it runs on, "" before it is scheduled
  std::string failure_comment;
  bool finished() const { return state == "Finished"; }
};

// Pure: the job in an API answer (GET /api/v0.2/jobs/N/), or an error naming `where`.
Result<LavaJob> ParseLavaJob(const std::string& json, const std::string& where);

class LavaApi {
 public:
  // `url`: the server, as users reach its web pages ("https://lava.example.org", a trailing '/'
  // or not); `token`: the API token, "" for none (a lab that lets anyone submit).
  LavaApi(std::string url, std::string token);

  // Submits the job definition (YAML); its id.
  Result<int64_t> Submit(const std::string& definition) const;
  Result<LavaJob> Job(int64_t id) const;
  // The job's log from line `from` (0-based) on, as far as it is written; `next` gets the line
  // to read from next time.
  Result<std::vector<LavaLogLine>> Log(int64_t id, size_t from, size_t* next) const;
  // How many jobs for `device_type` were submitted before job `id` and still wait.
  Result<size_t> QueuedBefore(int64_t id, const std::string& device_type) const;
  Status Cancel(int64_t id) const;

  const std::string& url() const { return url_; }

 private:
  struct Answer;
  Result<Answer> Call(const std::string& path, const std::string* post_json, long timeout_s) const;

  std::string url_;  // without the trailing '/'
  std::string token_;
};

}  // namespace ktune::host
