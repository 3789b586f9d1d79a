// The job template: khost's placeholders filled, unknown ones refused, LAVA's own braces kept,
// the "# ktune-address:" line.
#include "host/lava/job_template.h"

#include <doctest/doctest.h>

namespace ktune::host {
namespace {

TEST_CASE("a job template's placeholders are filled; LAVA's own braces are kept") {
  const JobValues v{
      .token = "ab12", .port = 4321, .job_name = "ktune lab board 1 of 2", .job_minutes = 30};
  auto job = FillJobTemplate(
      "job_name: \"{{KTUNE_JOB_NAME}}\"\ntimeouts: {job: {minutes: {{KTUNE_JOB_MINUTES}}}}\n"
      "image_arg: -kernel {kernel} -append \"ktune_token={{KTUNE_TOKEN}}\"\n"
      "hostfwd=tcp:127.0.0.1:{{KTUNE_PORT}}-10.0.2.15:7178 {{ other }}\n",
      v, "t.yaml");
  REQUIRE(job.ok());
  CHECK(*job ==
        "job_name: \"ktune lab board 1 of 2\"\ntimeouts: {job: {minutes: 30}}\n"
        "image_arg: -kernel {kernel} -append \"ktune_token=ab12\"\n"
        "hostfwd=tcp:127.0.0.1:4321-10.0.2.15:7178 {{ other }}\n");
  // The device type: filled, and a job for another type refused.
  const JobValues k1{.device_type = "k1"};
  CHECK(FillJobTemplate("device_type: {{KTUNE_DEVICE_TYPE}}\n", k1, "t.yaml").value() ==
        "device_type: k1\n");
  CHECK(FillJobTemplate("device_type: \"k1\"\n", k1, "t.yaml").ok());
  CHECK(FillJobTemplate("device_type: qemu\n", k1, "t.yaml").status().message() ==
        "t.yaml: the job is for device type 'qemu', not the agent's 'k1' (write device_type: "
        "{{KTUNE_DEVICE_TYPE}})");
  for (const char* bad : {"x {{KTUNE_TOKENS}}", "{{KTUNE_PORT", "{{KTUNE_}}"}) {
    CAPTURE(bad);
    auto r = FillJobTemplate(bad, v, "t.yaml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().starts_with("t.yaml: unknown placeholder {{KTUNE_"));
    CHECK(r.status().message().find("khost fills {{KTUNE_TOKEN}}") != std::string::npos);
  }
}

TEST_CASE("the job's agent address line") {
  auto at = JobAgentAddress("device_type: qemu\n  # ktune-address: 127.0.0.1:4321\n", "t.yaml");
  REQUIRE(at.ok());
  REQUIRE(*at);
  CHECK((*at)->ToString() == "127.0.0.1:4321");
  at = JobAgentAddress("device_type: qemu\n# a comment\n", "t.yaml");
  REQUIRE(at.ok());
  CHECK_FALSE(*at);
  at = JobAgentAddress("# ktune-address: somewhere\n", "t.yaml");
  REQUIRE_FALSE(at.ok());
  CHECK(at.status().message().starts_with("t.yaml: its \"# ktune-address:\" line"));
}

}  // namespace
}  // namespace ktune::host
