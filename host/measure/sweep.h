// The run service's measuring step (host/measure/run_service.h), on one agent or spread over
// several (khost run --agents a,b,c): the variants are cut into shards, each measured as a run of
// its own (<run_id>_<n>) on whichever agent is free next, every row going into the one results file
// under its global variant index. Agents must share a CPU fingerprint unless mixing is allowed.
// When an agent drops out (its link or agentd fails), the variants of its shard that did not arrive
// whole are moved to a new shard for the others; what it measured is kept, and khost run --resume
// merges its journal (that shard fetched as the agent holds it) once it is back.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "host/remote/agent_locator.h"
#include "host/remote/run_receiver.h"
#include "host/results/results_dir.h"

namespace ktune::host {

// Pure: "a,b,c" -> names; empty items and repeats are errors.
Result<std::vector<std::string>> ParseAgentList(const std::string& list);

// Pure: refuses agents of more than one CPU fingerprint unless `allow_mixed`, naming which agent
// has which. `agents`: (name, CpuFingerprint).
Status CheckFingerprints(const std::vector<std::pair<std::string, std::string>>& agents,
                         bool allow_mixed);

// Pure: the shards of a run of `variants` variants over `agents` agents: one, named run_id
// itself, for one agent; else about four per agent (so a faster board takes more of them), in
// variant order, named <run_id>_<n>.
std::vector<RunMeta::Shard> PlanShards(const std::string& run_id, size_t variants, size_t agents);

// Pure: the variants of `shard` that did not arrive whole (all of them before its plan did).
std::vector<uint32_t> Unfinished(const RunMeta::Shard& shard, const StreamTally& tally);

// Pure: what a results file holds of `shard` (its rows carry the shard's id), as a stream of it
// would have counted it.
StreamTally TallyOf(const RunMeta::Shard& shard, const std::vector<RepetitionRow>& rows,
                    size_t rows_per_variant);

// Pure: `request` cut to the shard's variants, under the shard's run id.
wire::RunRequest ShardRequest(const wire::RunRequest& request, const RunMeta::Shard& shard);

// What a sweep does with an agent's shard besides measuring it: fetch it as the agent's
// journal holds it (a shard moved away, its board back), or fetch and resume it (khost was
// stopped while it measured).
struct PinnedTask {
  size_t shard = 0;  // index into the sweep's shards
  bool resume = false;
};

struct SweepAgent {
  std::string name;  // as given
  AgentSession session;
  std::vector<PinnedTask> pinned;
};

struct SweepSetup {
  wire::RunRequest request;  // every variant, under the run's id
  std::vector<RunMeta::Shard> shards;
};

// Measures the setup's pending shards on `agents` (one thread each; each has the bundle) into
// `sink`, keeping the
// sink's metadata's shards up to date; true when every shard is whole. Fails when no agent is
// left with shards still pending, or when the run's own files fail. One agent with one shard
// under the run's own id is a plain run: its agent's error is the sweep's, nothing is moved.
Result<bool> RunSweep(std::vector<SweepAgent>& agents, SweepSetup setup, RunSink& sink);

// <results file without .csv>.request.pb (RunRequestPath): a sweep's whole request, which its
// shards are cut from, written before it starts (its directory made) and read by --resume.
Status WriteSweepRequest(const std::string& results_path, const wire::RunRequest& request);
Result<wire::RunRequest> ReadSweepRequest(const std::string& results_path);

// Pure: the id of a shard added to `shards`: <run_id>_<n>, n the shards' count, or the next n
// that no shard has (shards all of whose variants were reused are left out of the plan, so the
// ids need not run 0, 1, 2...).
std::string NextShardId(const std::string& run_id, const std::vector<RunMeta::Shard>& shards);

// Pure: whether a sweep's shards, read back from its metadata (`meta_path`), fit its request,
// read back too: each is named by the run's id, alone or with _<n>, no two alike; each lists
// variants of the request only; each is in a state khost writes. khost run --resume refuses
// files that do not, naming the first thing wrong, before it asks any agent.
Status CheckSweepShards(const RunMeta& meta, const wire::RunRequest& request,
                        const std::string& meta_path);

// What khost run --resume does with a sweep's shards (pure), given the agents that answer again
// (`back`, by name) and what the results file holds (`rows`, `rows_per_variant` by the plan): a
// shard its agent was measuring is resumed there; with that agent not back, its variants that
// did not arrive whole go to a new pending shard (<run_id>_<n>, the next n) and it is "moved"
// ("done" when none is missing), which a note says; a shard moved away earlier is fetched from
// its agent when that agent is back (its journal merged). Pending shards are left to RunSweep.
struct ResumePlan {
  std::vector<RunMeta::Shard> shards;
  std::map<std::string, std::vector<PinnedTask>> pinned;  // by agent name, in shard order
  std::vector<std::string> notes;                         // lines for the sink
};
ResumePlan PlanResume(std::vector<RunMeta::Shard> shards, const std::vector<std::string>& back,
                      const std::vector<RepetitionRow>& rows, size_t rows_per_variant,
                      const std::string& run_id);

}  // namespace ktune::host
