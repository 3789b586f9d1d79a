// Fuzzes what `khost run --resume` reads back of a sweep before it asks any agent
// (host/measure/run_service.cc ResumeSweep): the run's metadata (ParseRunMeta, its shards), its
// whole request (ReadSweepRequest, the .request.pb protobuf) and its results file
// (ParseResultsCsv), files khost wrote that were then cut short, edited or swapped; then
// CheckSweepShards, which refuses shards that do not fit the request, and PlanResume, which says
// what each agent that answers does, and ShardRequest, which cuts the request to each shard.
//
// Input: the metadata's text, a NUL, the results file's text, a NUL, then the request's bytes
// (protobuf, which may hold NULs: the rest of the input).
//
// Asserts, beyond no crash, no sanitizer report and no exception escaping:
// - a refusal is one line;
// - for every set of agents back (none, all, every other one, the first), the plan keeps the
//   shards it was given, in order, with their ids and variants; a shard measuring on an agent not
//   back is done or moved, and a moved one adds a pending shard of some of its variants under the
//   next free id (NextShardId); the others keep their state; its pinned tasks name given shards
//   and agents that are back; and what it plans passes CheckSweepShards again (a second --resume
//   reads it back);
// - each shard's request holds the shard's variants, in its order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/fs.h"
#include "common/results.h"
#include "host/measure/sweep.h"
#include "host/results/results_dir.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune::host {
namespace {

void CheckPlan(const RunMeta& meta, const wire::RunRequest& request,
               const std::vector<RepetitionRow>& rows, const std::vector<std::string>& back) {
  const ResumePlan plan = PlanResume(meta.shards, back, rows, request.repetitions(), meta.run_id);
  const auto is_back = [&](const std::string& agent) {
    return std::find(back.begin(), back.end(), agent) != back.end();
  };
  // The shards given stay, in order; one measuring on an agent not back is done or moved, and
  // each moved one adds a pending shard of some of its variants, under the next free id.
  size_t added = meta.shards.size();
  FUZZ_CHECK(plan.shards.size() >= added);
  for (size_t i = 0; i < meta.shards.size(); ++i) {
    const RunMeta::Shard &was = meta.shards[i], &now = plan.shards[i];
    FUZZ_CHECK(now.id == was.id && now.variants == was.variants && now.agent == was.agent);
    if (was.state != "measuring" || is_back(was.agent)) {
      FUZZ_CHECK(now.state == was.state);
      continue;
    }
    FUZZ_CHECK(now.state == "done" || now.state == "moved");
    if (now.state != "moved") continue;
    FUZZ_CHECK(added < plan.shards.size());
    const RunMeta::Shard& rest = plan.shards[added];
    const std::vector<RunMeta::Shard> before(plan.shards.begin(), plan.shards.begin() + added);
    FUZZ_CHECK(rest.state == "pending" && rest.agent.empty() && !rest.variants.empty() &&
               rest.id == NextShardId(meta.run_id, before));
    for (uint32_t v : rest.variants) {
      FUZZ_CHECK(std::find(was.variants.begin(), was.variants.end(), v) != was.variants.end());
    }
    ++added;
  }
  FUZZ_CHECK(added == plan.shards.size());
  for (const auto& [agent, tasks] : plan.pinned) {
    FUZZ_CHECK(is_back(agent));
    for (const PinnedTask& t : tasks) FUZZ_CHECK(t.shard < meta.shards.size());
  }
  // What a second --resume reads back fits as well, and each shard's request is its variants.
  RunMeta again = meta;
  again.shards = plan.shards;
  FUZZ_CHECK(CheckSweepShards(again, request, "fuzz").ok());
  for (const RunMeta::Shard& s : plan.shards) {
    const wire::RunRequest cut = ShardRequest(request, s);
    FUZZ_CHECK(cut.run_id() == s.id && cut.variants_size() == static_cast<int>(s.variants.size()));
    for (size_t v = 0; v < s.variants.size(); ++v) {
      FUZZ_CHECK(cut.variants(static_cast<int>(v)).name() ==
                 request.variants(static_cast<int>(s.variants[v])).name());
    }
  }
}

}  // namespace
}  // namespace ktune::host

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  using namespace ktune::host;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t first = input.find('\0');
  if (first == std::string_view::npos) return 0;
  const size_t second = input.find('\0', first + 1);
  if (second == std::string_view::npos) return 0;
  auto meta = ParseRunMeta(std::string(input.substr(0, first)), "r.json");
  if (!meta.ok()) return 0;
  // ReadSweepRequest reads the file beside the results file, as --resume does.
  const std::string results = FuzzScratchDir() + "/r.csv";
  FUZZ_CHECK(WriteFileAtomic(RunRequestPath(results), input.substr(second + 1)).ok());
  auto request = ReadSweepRequest(results);
  if (!request.ok()) return 0;
  std::vector<RepetitionRow> rows;
  if (auto file = ParseResultsCsv(std::string(input.substr(first + 1, second - first - 1)));
      file.ok()) {
    rows = std::move(file->rows);
  }

  const Status fits = CheckSweepShards(*meta, *request, "r.json");
  if (!fits.ok()) {
    FUZZ_CHECK(fits.message().find('\n') == std::string::npos);
    return 0;
  }
  // The agents that answer again: --resume asks those of the run's metadata, and goes on with
  // any of them that answer (some shards' agents may not be among them).
  std::vector<std::string> every_other, only_first;
  for (size_t i = 0; i < meta->agents.size(); i += 2) every_other.push_back(meta->agents[i]);
  if (!meta->agents.empty()) only_first.push_back(meta->agents.front());
  for (const std::vector<std::string>& back :
       {std::vector<std::string>{}, meta->agents, every_other, only_first}) {
    CheckPlan(*meta, *request, rows, back);
  }
  return 0;
}
