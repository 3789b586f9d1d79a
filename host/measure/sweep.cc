#include "host/measure/sweep.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "common/fs.h"
#include "common/strings.h"

namespace ktune::host {

Result<std::vector<std::string>> ParseAgentList(const std::string& list) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (std::string_view item : Split(list, ',')) {
    if (item.empty()) return InvalidArgument("--agents: an empty name in '" + list + "'");
    if (!seen.insert(std::string(item)).second) {
      return InvalidArgument("--agents: " + std::string(item) + " is listed twice");
    }
    out.emplace_back(item);
  }
  if (out.empty()) return InvalidArgument("--agents: no agent named");
  return out;
}

Status CheckFingerprints(const std::vector<std::pair<std::string, std::string>>& agents,
                         bool allow_mixed) {
  std::map<std::string, std::vector<std::string>> by_cpu;
  for (const auto& [name, fingerprint] : agents) by_cpu[fingerprint].push_back(name);
  if (by_cpu.size() <= 1 || allow_mixed) return Status::Ok();
  std::vector<std::string> kinds;
  for (const auto& [fingerprint, names] : by_cpu) {
    kinds.push_back(Join(names, ", ") + ": " + fingerprint);
  }
  return InvalidArgument("the agents have " + std::to_string(by_cpu.size()) + " kinds of CPU (" +
                         Join(kinds, "; ") +
                         "); their times do not compare (--allow-mixed to sweep anyway)");
}

std::vector<RunMeta::Shard> PlanShards(const std::string& run_id, size_t variants, size_t agents) {
  std::vector<RunMeta::Shard> shards;
  if (agents <= 1) {
    RunMeta::Shard all{run_id, {}, "", "pending"};
    for (size_t v = 0; v < variants; ++v) all.variants.push_back(static_cast<uint32_t>(v));
    shards.push_back(std::move(all));
    return shards;
  }
  const size_t per_shard = std::max<size_t>(1, (variants + 4 * agents - 1) / (4 * agents));
  for (size_t first = 0; first < variants; first += per_shard) {
    RunMeta::Shard s{ShardRunId(run_id, shards.size()), {}, "", "pending"};
    for (size_t v = first; v < std::min(variants, first + per_shard); ++v) {
      s.variants.push_back(static_cast<uint32_t>(v));
    }
    shards.push_back(std::move(s));
  }
  return shards;
}

std::vector<uint32_t> Unfinished(const RunMeta::Shard& shard, const StreamTally& tally) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < shard.variants.size(); ++i) {
    auto it = tally.rows.find(static_cast<uint32_t>(i));
    const size_t got = it == tally.rows.end() ? 0 : it->second;
    if (tally.rows_per_variant == 0 || got < tally.rows_per_variant) {
      out.push_back(shard.variants[i]);
    }
  }
  return out;
}

StreamTally TallyOf(const RunMeta::Shard& shard, const std::vector<RepetitionRow>& rows,
                    size_t rows_per_variant) {
  StreamTally tally;
  tally.rows_per_variant = rows_per_variant;
  std::map<uint32_t, uint32_t> local;
  for (size_t i = 0; i < shard.variants.size(); ++i) {
    local[shard.variants[i]] = static_cast<uint32_t>(i);
  }
  for (const RepetitionRow& row : rows) {
    auto it = local.find(row.variant_index);
    if (row.run_id == shard.id && it != local.end()) ++tally.rows[it->second];
  }
  return tally;
}

wire::RunRequest ShardRequest(const wire::RunRequest& request, const RunMeta::Shard& shard) {
  wire::RunRequest out = request;
  out.set_run_id(shard.id);
  out.clear_variants();
  for (uint32_t v : shard.variants) *out.add_variants() = request.variants(static_cast<int>(v));
  return out;
}

namespace {

// The shared state of one sweep: the shards, the queue of those no agent has, and how many are
// being measured (a shard may come back to the queue while any is). Guarded by mu.
struct SweepState {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<RunMeta::Shard> shards;
  std::deque<size_t> queue;
  size_t measuring = 0;
  Status failure;  // the run's own files failed (or, for one agent's run, the agent): all stop
  std::vector<std::string> dropped;
  bool single = false;  // one agent, one shard under the run's own id: nothing to move
  bool single_complete = false;
};

class Worker {
 public:
  Worker(SweepAgent& agent, const SweepSetup& setup, SweepState& state, RunSink& sink)
      : agent_(agent), setup_(setup), state_(state), sink_(sink) {}

  void Run() {
    for (const PinnedTask& task : agent_.pinned) {
      if (!Measure(task.shard, task.resume ? kResume : kFetch)) return;
    }
    for (;;) {
      size_t shard = 0;
      {
        std::unique_lock<std::mutex> lock(state_.mu);
        state_.changed.wait(lock, [&] {
          return !state_.failure.ok() || !state_.queue.empty() || state_.measuring == 0;
        });
        if (!state_.failure.ok() || state_.queue.empty()) return;
        shard = state_.queue.front();
        state_.queue.pop_front();
      }
      if (!Measure(shard, kRun)) return;
    }
  }

 private:
  enum Ask { kRun, kFetch, kResume };

  // False when this agent is out of the sweep.
  bool Measure(size_t index, Ask how) {
    const RunMeta::Shard shard = Claim(index, how);
    StreamTally tally;
    auto done = StreamRun(*agent_.session.conn, AskFor(shard, how),
                          sink_.StreamOf(shard.id, shard.variants, &tally));
    // A lab's board that failed: what the lab says of it, asked (over HTTP) before the lock.
    if (agent_.session.lease && !(done.ok() && done->complete())) {
      lab_says_ = agent_.session.lease->Now();
    }
    std::lock_guard<std::mutex> lock(state_.mu);
    if (how != kFetch) --state_.measuring;
    const Status local = sink_.LocalFailure();
    if (!local.ok()) {
      if (state_.failure.ok()) state_.failure = local;
      state_.changed.notify_all();
      return false;
    }
    if (state_.single) {
      if (!done.ok()) state_.failure = done.status();
      state_.single_complete = done.ok() && done->complete();
      return false;
    }
    if (how == kFetch) return SettleFetchedLocked(index, shard, done);
    return SettleMeasuredLocked(index, shard, done, tally);
  }

  // Marks shard `index` as this agent's (unless it is only fetched) and returns a copy of it.
  RunMeta::Shard Claim(size_t index, Ask how) {
    std::lock_guard<std::mutex> lock(state_.mu);
    RunMeta::Shard& s = state_.shards[index];
    if (how != kFetch) {
      s.agent = agent_.name;
      s.state = "measuring";
      ++state_.measuring;
    }
    SaveShards();
    return s;
  }

  wire::Envelope AskFor(const RunMeta::Shard& shard, Ask how) const {
    wire::Envelope ask;
    if (how == kRun) {
      *ask.mutable_run_request() = ShardRequest(setup_.request, shard);
    } else {
      ask.mutable_fetch_run()->set_run_id(shard.id);
      ask.mutable_fetch_run()->set_resume(how == kResume);
    }
    return ask;
  }

  // A moved shard's journal: merged as far as it goes.
  bool SettleFetchedLocked(size_t index, const RunMeta::Shard& shard,
                           const Result<wire::RunDone>& done) {
    if (!done.ok()) {
      DropLocked("shard " + shard.id + " not fetched: " + done.status().message());
      return false;
    }
    if (done->complete()) state_.shards[index].state = "merged";
    SaveShards();
    return true;
  }

  // A shard this agent measured: done, or its unfinished variants moved to a new shard for the
  // other agents and this agent out of the sweep.
  bool SettleMeasuredLocked(size_t index, const RunMeta::Shard& shard,
                            const Result<wire::RunDone>& done, const StreamTally& tally) {
    if (done.ok() && done->complete()) {
      state_.shards[index].state = "done";
      SaveShards();
      state_.changed.notify_all();
      return true;
    }
    const std::string why =
        done.ok() ? std::string("it ended the shard early") : done.status().message();
    const std::vector<uint32_t> rest = Unfinished(shard, tally);
    state_.shards[index].state = rest.empty() ? "done" : "moved";
    if (!rest.empty()) {
      state_.queue.push_front(state_.shards.size());
      state_.shards.push_back(
          {NextShardId(setup_.request.run_id(), state_.shards), rest, "", "pending"});
    }
    SaveShards();
    DropLocked(why + (rest.empty() ? ""
                                   : "; " + std::to_string(rest.size()) + " variants of shard " +
                                         shard.id + " go to the other agents"));
    return false;
  }

  void SaveShards() {
    if (state_.single) return;  // a run of one agent is not a sweep
    Status s = sink_.UpdateMeta([&](RunMeta& m) { m.shards = state_.shards; });
    if (!s.ok() && state_.failure.ok()) state_.failure = s;
  }

  void DropLocked(std::string why) {
    if (!lab_says_.empty()) why += "; " + lab_says_;
    state_.dropped.push_back(agent_.name + ": " + why);
    sink_.Note("khost run: agent " + agent_.name + " dropped out: " + why);
    state_.changed.notify_all();
  }

  SweepAgent& agent_;
  std::string lab_says_;  // of a lab's board that failed (Lease::Now), "" for others
  const SweepSetup& setup_;
  SweepState& state_;
  RunSink& sink_;
};

}  // namespace

Result<bool> RunSweep(std::vector<SweepAgent>& agents, SweepSetup setup, RunSink& sink) {
  SweepState state;
  state.shards = std::move(setup.shards);
  state.single = agents.size() == 1 && state.shards.size() == 1 &&
                 state.shards[0].id == setup.request.run_id();
  for (size_t i = 0; i < state.shards.size(); ++i) {
    if (state.shards[i].state == "pending") state.queue.push_back(i);
  }
  std::vector<Worker> workers;
  for (SweepAgent& a : agents) workers.emplace_back(a, setup, state, sink);
  if (workers.size() == 1) {
    workers[0].Run();  // no thread for one agent
  } else {
    std::vector<std::thread> threads;
    for (Worker& w : workers) threads.emplace_back([&w] { w.Run(); });
    for (std::thread& t : threads) t.join();
  }
  if (!state.failure.ok()) return state.failure;
  if (state.single) return state.single_complete;
  if (!state.queue.empty()) {
    std::vector<std::string> left;
    for (size_t i : state.queue) left.push_back(state.shards[i].id);
    return Unavailable("no agent is left (" + Join(state.dropped, "; ") + "); shards " +
                       Join(left, ", ") + " wait for khost run --resume");
  }
  for (const RunMeta::Shard& s : state.shards) {
    if (s.state == "pending" || s.state == "measuring") return false;
  }
  return true;
}

Status WriteSweepRequest(const std::string& results_path, const wire::RunRequest& request) {
  KT_RETURN_IF_ERROR(MakeDirs(std::filesystem::path(results_path).parent_path().string()));
  return WriteFileAtomic(RunRequestPath(results_path), request.SerializeAsString());
}

Result<wire::RunRequest> ReadSweepRequest(const std::string& results_path) {
  const std::string path = RunRequestPath(results_path);
  KT_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  wire::RunRequest request;
  if (!request.ParseFromString(text)) return InvalidArgument(path + ": not a run request");
  return request;
}

std::string NextShardId(const std::string& run_id, const std::vector<RunMeta::Shard>& shards) {
  std::set<std::string> taken;
  for (const RunMeta::Shard& s : shards) taken.insert(s.id);
  size_t n = shards.size();
  while (taken.count(ShardRunId(run_id, n))) ++n;
  return ShardRunId(run_id, n);
}

Status CheckSweepShards(const RunMeta& meta, const wire::RunRequest& request,
                        const std::string& meta_path) {
  const size_t variants = static_cast<size_t>(request.variants_size());
  const std::string where = EscapedText(meta_path), run_id = EscapedText(meta.run_id);
  std::set<std::string> seen;
  for (const RunMeta::Shard& shard : meta.shards) {
    // The ids and states are the file's text, printed escaped: the refusal stays one line.
    const std::string id = EscapedText(shard.id);
    if (shard.id != meta.run_id && RunOfShard(shard.id) != meta.run_id) {
      return InvalidArgument(where + ": a shard is named '" + id + "', not " + run_id + " or " +
                             run_id + "_<n>; the file is not one khost wrote");
    }
    if (!seen.insert(shard.id).second) {
      return InvalidArgument(where + ": two shards are named " + id);
    }
    for (uint32_t v : shard.variants) {
      if (v >= variants) {
        return InvalidArgument(where + ": shard " + id + " lists variant " + std::to_string(v) +
                               ", but the run's request has " + std::to_string(variants) +
                               " variants; the files are not one run's");
      }
    }
    static const std::set<std::string> kStates = {"pending", "measuring", "done", "moved",
                                                  "merged"};
    if (!kStates.count(shard.state)) {
      return InvalidArgument(where + ": shard " + id + " is in state '" + EscapedText(shard.state) +
                             "' (pending, measuring, done, moved or merged)");
    }
  }
  return Status::Ok();
}

ResumePlan PlanResume(std::vector<RunMeta::Shard> shards, const std::vector<std::string>& back,
                      const std::vector<RepetitionRow>& rows, size_t rows_per_variant,
                      const std::string& run_id) {
  ResumePlan plan;
  const auto is_back = [&](const std::string& agent) {
    return std::find(back.begin(), back.end(), agent) != back.end();
  };
  // Shards added here are pending: the loop looks at those given only.
  const size_t given = shards.size();
  for (size_t i = 0; i < given; ++i) {
    const RunMeta::Shard& shard = shards[i];
    if (shard.state == "moved" && is_back(shard.agent)) {
      plan.pinned[shard.agent].push_back({i, false});
    }
    if (shard.state != "measuring") continue;
    if (is_back(shard.agent)) {
      plan.pinned[shard.agent].push_back({i, true});
      continue;
    }
    const std::vector<uint32_t> rest = Unfinished(shard, TallyOf(shard, rows, rows_per_variant));
    plan.notes.push_back("khost run: agent " + shard.agent +
                         " is not back: " + std::to_string(rest.size()) + " variants of shard " +
                         shard.id + " go to the others");
    shards[i].state = rest.empty() ? "done" : "moved";
    if (!rest.empty()) shards.push_back({NextShardId(run_id, shards), rest, "", "pending"});
  }
  plan.shards = std::move(shards);
  return plan;
}

}  // namespace ktune::host
