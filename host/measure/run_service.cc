#include "host/measure/run_service.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "common/cpu.h"
#include "common/strings.h"
#include "host/lava/lava_boards.h"
#include "host/remote/agent_client.h"
#include "host/results/results_dir.h"
#include "host/results/shape_sets.h"

namespace ktune::host {

Result<std::vector<SweepAgent>> OpenAgents(const std::vector<std::string>& names,
                                           const std::string& token_file) {
  std::vector<SweepAgent> agents;
  for (const std::string& name : names) {
    KT_ASSIGN_OR_RETURN(const AgentChoice choice, ChooseAgentFor(name));
    if (choice.registered && choice.registered->lava) {
      if (!token_file.empty()) {
        return InvalidArgument("--token-file: agent " + choice.registered->name +
                               " is a LAVA lab's boards, whose agentd each job gives a token of "
                               "its own");
      }
      KT_ASSIGN_OR_RETURN(std::vector<AgentSession> boards,
                          ReserveLavaBoards(*choice.registered, std::cerr));
      for (AgentSession& b : boards) agents.push_back({b.name, std::move(b), {}});
      continue;
    }
    KT_ASSIGN_OR_RETURN(AgentSession session, OpenAgentSession(name, token_file));
    agents.push_back({name, std::move(session), {}});
  }
  return agents;
}

Result<std::vector<AgentPlan>> PlanAgents(const MeasureOptions& measure, const KernelDir& dir,
                                          const std::vector<SweepAgent>& agents, bool allow_mixed) {
  std::vector<AgentPlan> plans;
  std::vector<std::pair<std::string, std::string>> fingerprints;
  for (const SweepAgent& a : agents) {
    KT_ASSIGN_OR_RETURN(AgentPlan plan, PrepareAgent(measure, dir, a.session));
    fingerprints.emplace_back(a.session.name, CpuFingerprint(plan.cpu));
    plans.push_back(std::move(plan));
  }
  KT_RETURN_IF_ERROR(CheckFingerprints(fingerprints, allow_mixed));
  for (const AgentPlan& plan : plans) {
    if (plan.selection.events != plans[0].selection.events) {
      return InvalidArgument("the agents' CPUs make different events of --events (" +
                             Join(plans[0].selection.events, ",") + " and " +
                             Join(plan.selection.events, ",") + "); name the events");
    }
  }
  return plans;
}

namespace {

// Pushes `manifest` to every agent, each on a thread of its own (none for one agent); how each
// went, in order.
std::vector<Status> PushToAgents(std::vector<SweepAgent>& agents, const Manifest& manifest,
                                 const std::string& root) {
  std::vector<Status> pushed(agents.size());
  const auto push = [&](size_t i) {
    pushed[i] = PushBundle(*agents[i].session.conn, manifest, root).status();
  };
  if (agents.size() == 1) {
    push(0);
  } else {
    std::vector<std::thread> threads;
    for (size_t i = 0; i < agents.size(); ++i) threads.emplace_back(push, i);
    for (std::thread& t : threads) t.join();
  }
  return pushed;
}

// The agents that took the bundle: one agent's failed push is the run's error; of several, those
// that failed are said and left out (an error when none is left).
Status KeepPushed(std::vector<SweepAgent>& agents, const Manifest& manifest,
                  const std::string& root, const std::string& command) {
  const std::vector<Status> pushed = PushToAgents(agents, manifest, root);
  if (agents.size() == 1) return pushed[0];
  std::vector<SweepAgent> kept;
  std::vector<std::string> failed;
  for (size_t i = 0; i < agents.size(); ++i) {
    if (pushed[i].ok()) {
      kept.push_back(std::move(agents[i]));
      continue;
    }
    failed.push_back(agents[i].name + ": " + pushed[i].message());
    std::cerr << command << ": agent " << agents[i].name
              << " dropped out: the push failed: " << pushed[i].message() << "\n";
  }
  if (kept.empty()) return Unavailable("no agent took the bundle (" + Join(failed, "; ") + ")");
  agents = std::move(kept);
  return Status::Ok();
}

// How a run is described in its metadata: its agents ("a, b"; one agent by its address) and the
// CPU of each kind.
void DescribeAgents(const std::vector<SweepAgent>& agents, const std::vector<AgentPlan>& plans,
                    RunMeta& meta) {
  std::vector<std::string> names, cpus;
  for (size_t i = 0; i < agents.size(); ++i) {
    names.push_back(agents.size() == 1 ? agents[i].session.conn->where() : agents[i].session.name);
    const std::string cpu = DescribeCpu(plans[i].cpu);
    if (std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) cpus.push_back(cpu);
  }
  meta.agent = Join(names, ", ");
  meta.cpu = Join(cpus, "; ");
}

std::string ResumeText(const HowToResume& how, const std::string& run_id) {
  return how ? how(run_id) : "";
}

// Each row the run's file takes goes to the tuning database too, when one records.
void RecordRows(ReceiveSetup& setup, RunRecorder* recorder) {
  if (recorder) setup.on_row = [recorder](const RepetitionRow& row) { recorder->Row(row); };
}

// The run as its streams ended, recorded whole (metadata, variants, results) when it came back;
// else the rows that arrived are.
Result<ReceivedRun> Recorded(Result<ReceivedRun> got, RunRecorder* recorder) {
  if (!recorder) return got;
  if (got.ok() && got->run.meta) {
    recorder->Run(*got->run.meta, got->run.rows);
  } else {
    recorder->Flush();
  }
  return got;
}

// The variants of `dir` whose measurement the tuning database holds, as NewRun::reuse_age_s says:
// their rows as the run's (the run's variant index, name, ELF and parameters; the measuring run's
// id, board, times and values), and what the metadata says of them. A database that fails here is
// said once and used no more; the variants are then measured.
struct ReusedRows {
  std::vector<RepetitionRow> rows;
  std::vector<RunMeta::Reused> said;
  std::set<uint32_t> variants;
};
ReusedRows FindReused(const KernelDir& dir, const Manifest& manifest, const RunMeta& meta,
                      const std::string& board, const NewRun& run) {
  ReusedRows out;
  TuningDb* db = run.recorder ? run.recorder->db() : nullptr;
  const std::optional<int64_t> age_s = ReuseAge(run.measure);
  if (!db || !age_s) return out;
  std::map<std::string, std::string> hashes;
  for (const FileEntry& f : manifest.files) hashes[f.path] = f.hash;
  const int64_t since_ns = UnixNowNs() - *age_s * 1'000'000'000;
  for (uint32_t i = 0; i < dir.variants.size(); ++i) {
    const KernelVariant& v = dir.variants[i];
    const RunMeta::Inputs& in = meta.inputs[i];
    const std::string key =
        ReuseKey(hashes[v.elf_path], in.args, in.test_data_hash, v.shape, board, meta.method);
    Result<std::optional<Reusable>> found =
        db->FindReusable(key, since_ns, run.measure.repetitions);
    if (found.ok() && !*found) continue;
    Result<std::vector<RepetitionRow>> rows =
        found.ok() ? db->RowsOf((*found)->run_id, (*found)->variant_index) : found.status();
    if (!rows.ok()) {
      run.recorder->Fail(rows.status());
      return {};
    }
    for (RepetitionRow& r : *rows) {
      if (r.repetition >= run.measure.repetitions) continue;  // as many as asked, no more
      r.variant_index = i;
      r.variant = v.name;
      r.elf = v.elf_path;
      r.params = v.params;
      out.rows.push_back(std::move(r));
    }
    out.said.push_back({i, (*found)->run_id, (*found)->measured_ns});
    out.variants.insert(i);
  }
  return out;
}

// The shards without the variants reused; a shard left with none is dropped.
std::vector<RunMeta::Shard> WithoutReused(std::vector<RunMeta::Shard> shards,
                                          const std::set<uint32_t>& reused) {
  for (RunMeta::Shard& s : shards) {
    std::erase_if(s.variants, [&](uint32_t v) { return reused.count(v) > 0; });
  }
  std::erase_if(shards, [](const RunMeta::Shard& s) { return s.variants.empty(); });
  return shards;
}

void SayReused(const std::string& command, const ReusedRows& reused, size_t variants,
               int64_t age_s) {
  if (reused.said.empty()) return;
  std::cerr << command << ": " << reused.said.size() << " of " << variants
            << " variants reused from the tuning database (the same ELF, inputs, board and "
               "method, measured in the last "
            << (age_s % 3600 == 0 ? std::to_string(age_s / 3600) + " h"
                                  : std::to_string(age_s) + " s")
            << "; --fresh measures them again)\n";
}

}  // namespace

Result<ReceivedRun> MeasureRun(std::vector<SweepAgent>& agents, const std::vector<AgentPlan>& plans,
                               const KernelDir& dir, const Manifest& manifest, const NewRun& run) {
  const bool sweep = agents.size() > 1;
  std::vector<std::string> names;
  for (const SweepAgent& a : agents) names.push_back(a.name);
  RunMeta asked;  // the agents asked and their CPUs, described before any is left out
  DescribeAgents(agents, plans, asked);

  const std::string run_id = run.run_id.empty() ? NewRunId() : run.run_id;
  MeasureOptions measured = run.measure;
  measured.events = plans[0].selection.events;
  if (!measured.seed) measured.seed = std::random_device{}();
  RunMeta keys;
  keys.method = MethodKey(measured);
  keys.inputs = VariantInputs(dir, manifest);
  const ReusedRows reused = FindReused(dir, manifest, keys, CpuFingerprint(plans[0].cpu), run);
  SayReused(run.command, reused, dir.variants.size(), run.measure.reuse_age_s.value_or(0));
  const bool measure = reused.variants.size() < dir.variants.size();
  if (measure) KT_RETURN_IF_ERROR(KeepPushed(agents, manifest, dir.root, run.command));
  ReceiveSetup setup;
  setup.command = run.command;
  setup.results_path = ResultsPath(dir.run_dir, run_id);
  setup.meta = NewRunMeta(run_id, dir.kernel, run.measure, *measured.seed, plans[0]);
  setup.meta.agent = asked.agent;
  setup.meta.cpu = asked.cpu;
  setup.meta.method = keys.method;
  setup.meta.inputs = keys.inputs;
  setup.meta.reused = reused.said;
  setup.meta.build = dir.build;
  setup.meta.build["measured_by"] = KtuneVersion();
  setup.request = MakeRunRequest(measured, dir, BundleId(manifest), run_id);
  RecordRows(setup, run.recorder);
  setup.show_progress = run.show_progress;
  setup.say_system_warnings = run.say_system_warnings;
  setup.how_to_resume = ResumeText(run.how_to_resume, run_id);
  SweepSetup sweep_setup{
      *setup.request,
      WithoutReused(PlanShards(run_id, dir.variants.size(), names.size()), reused.variants)};
  // A run with variants reused measures the rest as a sweep of one shard: its metadata keeps the
  // shard, whose agent numbers its variants apart from the run's (FetchRun maps them back).
  if (sweep || !reused.variants.empty()) {
    setup.meta.agents = names;
    setup.meta.shards = sweep_setup.shards;
    KT_RETURN_IF_ERROR(WriteSweepRequest(setup.results_path, *setup.request));
  }
  KT_ASSIGN_OR_RETURN(std::unique_ptr<RunSink> sink, RunSink::Open(std::move(setup)));
  KT_RETURN_IF_ERROR(sink->AddReused(reused.rows));
  const Result<bool> complete = measure ? RunSweep(agents, std::move(sweep_setup), *sink) : true;
  return Recorded(sink->Finish(complete.status(), complete.ok() && *complete), run.recorder);
}

Result<MeasuredKernel> MeasureKernel(const KernelRun& ask) {
  MeasuredKernel out;
  KT_ASSIGN_OR_RETURN(out.dir, LoadKernelDir(ask.root, ask.kernel));
  if (!ask.shape.empty() || !ask.shapes_file.empty()) {
    std::vector<ShapeSet> sets;
    if (!ask.shapes_file.empty()) {
      KT_ASSIGN_OR_RETURN(sets, ReadShapesFile(ask.shapes_file));
    }
    for (const std::string& s : ask.shape) {
      KT_ASSIGN_OR_RETURN(auto set, ParseShapeSet(s));
      sets.push_back({std::move(set), "--shape " + s});
    }
    KT_RETURN_IF_ERROR(KeepVariantsAt(sets, ask.kernel, &out.dir.variants));
  }
  const std::vector<KernelVariant>& variants = out.dir.variants;
  if (ask.run.measure.adaptive &&
      std::any_of(variants.begin(), variants.end(),
                  [&](const KernelVariant& v) { return v.shape != variants.front().shape; })) {
    return InvalidArgument(kAdaptiveShapes);
  }
  KT_ASSIGN_OR_RETURN(const Manifest manifest, BuildManifest(out.dir));
  KT_ASSIGN_OR_RETURN(std::vector<SweepAgent> agents, OpenAgents(ask.agents, ask.token_file));
  KT_ASSIGN_OR_RETURN(const std::vector<AgentPlan> plans,
                      PlanAgents(ask.run.measure, out.dir, agents, ask.allow_mixed));
  KT_ASSIGN_OR_RETURN(out.got, MeasureRun(agents, plans, out.dir, manifest, ask.run));
  return out;
}

namespace {

// The sessions of a sweep's agents that answer; one that does not is said and left out.
Result<std::vector<SweepAgent>> OpenAgentsBack(const FetchAsk& ask, const RunMeta& meta) {
  std::vector<SweepAgent> agents;
  // A LAVA lab's boards were given back when the command ended: as many new ones are reserved.
  std::vector<std::string> again;
  for (const std::string& name : meta.agents) {
    const std::optional<std::string> lab = LavaAgentOf(name);
    if (lab && std::find(again.begin(), again.end(), *lab) == again.end()) again.push_back(*lab);
  }
  for (const std::string& lab : again) {
    auto boards = OpenAgents({lab}, "");
    if (!boards.ok()) {
      std::cerr << ask.command << ": agent " << lab << ": " << boards.status().message() << "\n";
      continue;
    }
    for (SweepAgent& b : *boards) agents.push_back(std::move(b));
  }
  for (const std::string& name : meta.agents) {
    if (LavaAgentOf(name)) continue;
    auto session = OpenAgentSession(name, ask.token_file);
    if (!session.ok()) {
      std::cerr << ask.command << ": agent " << name
                << " is not back: " << session.status().message() << "\n";
      continue;
    }
    agents.push_back({name, std::move(session).value(), {}});
  }
  if (agents.empty()) return Unavailable("none of run " + meta.run_id + "'s agents answers");
  return agents;
}

// khost run --resume of a sweep (setup.meta has its agents and shards): the agents that answer
// resume and fetch their shards as PlanResume says, then sweep what is pending; the kernel's
// files must still be those the run was asked with.
Result<ReceivedRun> ResumeSweep(const FetchAsk& ask, ReceiveSetup setup) {
  if (!ask.dir) return InternalError("a sweep is resumed with its kernel's files");
  const KernelDir& dir = *ask.dir;
  const std::string run_id = setup.meta.run_id;
  KT_ASSIGN_OR_RETURN(const wire::RunRequest request, ReadSweepRequest(setup.results_path));
  KT_RETURN_IF_ERROR(CheckSweepShards(setup.meta, request, RunMetaPath(setup.results_path)));
  KT_ASSIGN_OR_RETURN(std::vector<SweepAgent> agents, OpenAgentsBack(ask, setup.meta));
  KT_ASSIGN_OR_RETURN(Manifest manifest, BuildManifest(dir));
  if (BundleId(manifest) != request.bundle_id()) {
    return InvalidArgument("the files of " + dir.kernel + " changed since run " + run_id +
                           " was asked; it cannot be measured as it was");
  }
  KT_RETURN_IF_ERROR(KeepPushed(agents, manifest, dir.root, ask.command));
  std::vector<RunMeta::Shard> shards = setup.meta.shards;
  setup.request = request;
  RecordRows(setup, ask.recorder);
  KT_ASSIGN_OR_RETURN(std::unique_ptr<RunSink> sink, RunSink::Open(std::move(setup)));
  std::vector<std::string> back;
  for (const SweepAgent& a : agents) back.push_back(a.name);
  ResumePlan plan =
      PlanResume(std::move(shards), back, sink->Rows(), sink->RowsPerVariant(), run_id);
  for (const std::string& note : plan.notes) sink->Note(note);
  for (SweepAgent& a : agents) a.pinned = plan.pinned[a.name];
  const Result<bool> complete =
      RunSweep(agents, SweepSetup{request, std::move(plan.shards)}, *sink);
  return Recorded(sink->Finish(complete.status(), complete.ok() && *complete), ask.recorder);
}

// The run's results file: the newest local run's, or run_id's (which, for a fetch only, need not
// be here yet).
Result<std::string> ResultsFileOf(const FetchAsk& ask) {
  if (ask.run_id.empty() || ask.resume) return FindRunFile(ask.run_dir, ask.run_id);
  KT_RETURN_IF_ERROR(ValidateRunId(ask.run_id));
  return ResultsPath(ask.run_dir, ask.run_id);
}

}  // namespace

Result<ReceivedRun> FetchRun(const FetchAsk& ask) {
  ReceiveSetup setup;
  setup.command = ask.command;
  KT_ASSIGN_OR_RETURN(setup.results_path, ResultsFileOf(ask));
  const std::string run_id = std::filesystem::path(setup.results_path).stem().string();
  // The metadata is written before a run is asked: without it, the agent knows the run, if any.
  if (auto meta = ReadRunMeta(RunMetaPath(setup.results_path)); meta.ok()) {
    setup.meta = std::move(meta).value();
  } else if (ask.require_meta) {
    return NotFound("run " + run_id + " was not asked");
  } else {
    setup.meta.run_id = run_id;
    setup.meta.kernel = ask.kernel;
  }
  if (ask.resume && ask.refuse_complete && setup.meta.complete &&
      // A sweep whose every variant arrived may still have journals to merge, of shards moved.
      std::none_of(setup.meta.shards.begin(), setup.meta.shards.end(),
                   [](const RunMeta::Shard& s) { return s.state == "moved"; })) {
    return InvalidArgument("run " + run_id + " is complete; nothing to resume");
  }
  setup.show_progress = ask.show_progress;
  setup.say_system_warnings = ask.say_system_warnings;
  setup.how_to_resume = ResumeText(ask.how_to_resume, run_id);
  if (ask.resume && !setup.meta.shards.empty()) return ResumeSweep(ask, std::move(setup));

  std::optional<AgentSession> opened;
  AgentSession* session = ask.open ? &ask.open->session : nullptr;
  if (!session) {
    KT_ASSIGN_OR_RETURN(opened, OpenAgentSession(ask.agent, ask.token_file));
    session = &*opened;
  }
  const std::string measured_on = setup.meta.agent;
  if (setup.meta.agent.empty()) setup.meta.agent = session->conn->where();
  wire::Envelope fetch;
  fetch.mutable_fetch_run()->set_run_id(run_id);
  fetch.mutable_fetch_run()->set_resume(ask.resume);
  RecordRows(setup, ask.recorder);
  // One shard under the run's own id (variants reused, the rest measured): the agent numbers the
  // shard's variants, the run's request holds them all.
  std::vector<uint32_t> variants;
  if (setup.meta.shards.size() == 1 && setup.meta.shards[0].id == run_id) {
    variants = setup.meta.shards[0].variants;
    KT_ASSIGN_OR_RETURN(setup.request, ReadSweepRequest(setup.results_path));
    KT_RETURN_IF_ERROR(
        CheckSweepShards(setup.meta, *setup.request, RunMetaPath(setup.results_path)));
  }
  auto got = Recorded(ReceiveRun(*session->conn, fetch, std::move(setup), std::move(variants)),
                      ask.recorder);
  if (!got.ok() && got.status().code() == ErrorCode::kNotFound && !measured_on.empty()) {
    return got.status().WithContext("run " + run_id + " was measured on " + measured_on);
  }
  return got;
}

}  // namespace ktune::host
