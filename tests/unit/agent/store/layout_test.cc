// agent/store/layout.h: every path under an agent's store, by name (they are a file format: an
// agent resumes the runs, and uses the blobs and bundles, an earlier agent left).
#include <doctest/doctest.h>

#include "agent/store/layout.h"

namespace ktune::agent {
namespace {

TEST_CASE("the store's directories and files") {
  const StoreLayout s("/s");
  CHECK(s.root() == "/s");
  CHECK(s.Directories() ==
        std::vector<std::string>{"/s/blobs", "/s/tmp", "/s/bundles", "/s/runs", "/s/work"});
  CHECK(s.BlobDir("abcdef") == "/s/blobs/ab");
  CHECK(s.Blob("abcdef") == "/s/blobs/ab/abcdef");
  CHECK(s.TmpBlob("abcdef", "7") == "/s/tmp/abcdef.7");
  CHECK(s.TmpTree("8") == "/s/tmp/tree.8");
  CHECK(s.Bundle("b1") == "/s/bundles/b1");
  CHECK(s.Manifest("b1") == "/s/bundles/b1/manifest");
  CHECK(s.Tree("b1") == "/s/bundles/b1/tree");
  CHECK(s.Work("r1") == "/s/work/r1");
  CHECK(s.pmu_budgets() == "/s/pmu-budgets");
  CHECK(s.log_file() == "/s/agentd.log");
  CHECK(s.pid_file() == "/s/agentd.pid");
  CHECK(s.lock_file() == "/s/agentd.lock");
}

TEST_CASE("a run's directory and its files") {
  const RunLayout r = StoreLayout("/s").Run("r1");
  CHECK(r.dir() == "/s/runs/r1");
  CHECK(r.results() == "/s/runs/r1/results.csv");
  CHECK(r.profiles() == "/s/runs/r1/profiles.frames");
  CHECK(r.request() == "/s/runs/r1/request.pb");
  CHECK(r.accepted() == "/s/runs/r1/accepted.pb");
  CHECK(r.done() == "/s/runs/r1/done");
}

}  // namespace
}  // namespace ktune::agent
