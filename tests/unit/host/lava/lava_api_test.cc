// A LAVA job as the API shows it; a lab that does not answer is one error naming it. (The calls
// themselves run against a real LAVA in tests/integration/lava_test.cc.)
#include "host/lava/lava_api.h"

#include <doctest/doctest.h>

namespace ktune::host {
namespace {

TEST_CASE("a job from the API's answer") {
  auto job = ParseLavaJob(
      R"({"id": 7, "state": "Running", "health": "Unknown", "actual_device": "qemu01",
          "failure_comment": null, "definition": "..."})",
      "lab");
  REQUIRE(job.ok());
  CHECK(job->id == 7);
  CHECK(job->state == "Running");
  CHECK(job->device == "qemu01");
  CHECK(job->failure_comment.empty());
  CHECK_FALSE(job->finished());
  job = ParseLavaJob(R"({"id": 7, "state": "Finished", "health": "Incomplete",
                         "actual_device": null, "failure_comment": "boot timed out"})",
                     "lab");
  REQUIRE(job.ok());
  CHECK(job->finished());
  CHECK(job->failure_comment == "boot timed out");
  for (const char* bad : {"", "[]", R"({"id": "7", "state": "x", "health": "y"})",
                          R"({"id": 7, "health": "y"})", R"({"detail": "Not found."})"}) {
    CAPTURE(bad);
    auto r = ParseLavaJob(bad, "LAVA at http://lab, job 7");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().starts_with("LAVA at http://lab, job 7: not a LAVA job"));
  }
}

TEST_CASE("a lab that does not answer is one error naming it") {
  const LavaApi api("http://127.0.0.1:1/", "t");
  CHECK(api.url() == "http://127.0.0.1:1");
  auto id = api.Submit("device_type: qemu\n");
  REQUIRE_FALSE(id.ok());
  CHECK(id.status().message().starts_with(
      "LAVA at http://127.0.0.1:1: http://127.0.0.1:1/api/v0.2/jobs/: "));
}

}  // namespace
}  // namespace ktune::host
