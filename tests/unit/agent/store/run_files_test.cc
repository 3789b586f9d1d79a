// agent/store/run_files.h: the files beside a run's journal, written and read back.
#include <doctest/doctest.h>

#include "agent/store/run_files.h"
#include "common/fs.h"
#include "tests/unit/temp_dir.h"

namespace ktune::agent {
namespace {

TEST_CASE("a run's request, plan and end are kept beside its journal") {
  test::UnitTempDir tmp("ktune-run-files-test");
  const RunFiles files("r1", RunLayout(tmp.path().string()));
  CHECK(files.run_id() == "r1");
  CHECK_FALSE(files.HasRequest());
  CHECK(files.ReadRequest().status().code() == ErrorCode::kNotFound);
  CHECK(files.ReadRequest().status().message() == "no run r1 on this agent");
  REQUIRE(files.ReadAccepted().ok());
  CHECK_FALSE(files.ReadAccepted()->has_value());  // not planned yet
  CHECK_FALSE(files.Done());

  wire::RunRequest request;
  request.set_run_id("r1");
  request.set_repetitions(3);
  REQUIRE(files.WriteRequest(request).ok());
  CHECK(files.HasRequest());
  CHECK(ReadFile(files.layout().request()).value() == request.SerializeAsString());
  CHECK(files.ReadRequest()->repetitions() == 3);

  wire::RunAccepted accepted;
  accepted.set_run_id("r1");
  accepted.set_counter_budget(4);
  REQUIRE(files.WriteAccepted(accepted).ok());
  REQUIRE(files.ReadAccepted().ok());
  REQUIRE(files.ReadAccepted()->has_value());
  CHECK(files.ReadAccepted()->value().counter_budget() == 4);

  REQUIRE(files.MarkDone().ok());
  CHECK(files.Done());
  CHECK(ReadFile(files.layout().done()).value().empty());
}

TEST_CASE("a stored request or plan that does not parse is a protocol error") {
  test::UnitTempDir tmp("ktune-run-files-test");
  const RunFiles files("r2", RunLayout(tmp.path().string()));
  REQUIRE(WriteFileAtomic(files.layout().request(), "\xff\xff\xff").ok());
  REQUIRE(WriteFileAtomic(files.layout().accepted(), "\xff\xff\xff").ok());
  CHECK(files.ReadRequest().status().code() == ErrorCode::kProtocol);
  CHECK(files.ReadRequest().status().message() == "run r2: its stored request does not parse");
  CHECK(files.ReadAccepted().status().code() == ErrorCode::kProtocol);
  CHECK(files.ReadAccepted().status().message() == "run r2: bad plan");
}

}  // namespace
}  // namespace ktune::agent
