#include "host/measure/run_request.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "common/hash.h"
#include "common/system_check.h"
#include "host/util/elf_symbols.h"
#include "protocol/convert.h"

namespace ktune::host {

std::optional<int64_t> ReuseAge(const MeasureOptions& options) {
  if (options.adaptive || !options.record.empty()) return std::nullopt;
  return options.reuse_age_s;
}

wire::RunRequest MakeRunRequest(const MeasureOptions& options, const KernelDir& dir,
                                const std::string& bundle_id, const std::string& run_id) {
  wire::RunRequest req;
  req.set_run_id(run_id);
  req.set_bundle_id(bundle_id);
  for (const KernelVariant& v : dir.variants) {
    auto* w = req.add_variants();
    w->set_name(v.name);
    w->set_elf_path(v.elf_path);
    for (const auto& a : v.args) w->add_args(a);
    for (const auto& [k, val] : v.params) {
      auto* p = w->add_params();
      p->set_name(k);
      p->set_value(val);
    }
    for (const auto& [k, val] : v.shape) {
      auto* d = w->add_shape();
      d->set_name(k);
      d->set_value(val);
    }
    w->set_test_data(v.test_data);
  }
  for (const auto& e : options.events) req.add_events(e);
  req.set_repetitions(options.repetitions);
  req.set_warmup(options.warmup);
  req.set_order(options.order);
  req.set_seed(options.seed.value_or(0));
  if (options.adaptive) {
    req.mutable_adaptive()->set_min_reps(options.adaptive->min_reps);
    req.mutable_adaptive()->set_target_ci(options.adaptive->target_ci);
    req.mutable_adaptive()->set_max_time_ms(options.max_time_ms);
  }
  req.set_cooldown_ms(options.cooldown_ms);
  req.set_max_temp_mc(options.max_temp_mc);
  req.set_timeout_ms(options.timeout_ms);
  req.set_cpu(options.cpu);
  req.set_cpu_model(options.cpu_model);
  req.set_multiplex(options.multiplex);
  for (const auto& e : options.record) req.add_record(e);
  req.set_sample_period(options.sample_period);
  req.set_sample_freq(options.sample_freq);
  req.set_callchain(options.callchain);
  return req;
}

RunMeta NewRunMeta(const std::string& run_id, const std::string& kernel,
                   const MeasureOptions& asked, uint64_t seed, const AgentPlan& plan) {
  RunMeta meta;
  meta.run_id = run_id;
  meta.kernel = kernel;
  meta.core = plan.core;
  meta.requested = asked.events;
  meta.events = plan.selection.events;
  for (const MetricDef& m : plan.selection.metrics) {
    meta.metrics.push_back({m.name, m.formula, m.group});
  }
  meta.order = asked.order == wire::RUN_ORDER_SEQUENTIAL ? "sequential" : "interleaved";
  meta.seed = seed;
  meta.adaptive = asked.adaptive;
  meta.cooldown_ms = asked.cooldown_ms;
  meta.max_temp_mc = asked.max_temp_mc;
  return meta;
}

std::string MethodKey(const MeasureOptions& measured) {
  std::vector<std::string> events = measured.events;
  std::sort(events.begin(), events.end());
  nlohmann::json key = {
      {"events", events},
      {"warmup", measured.warmup},
      {"cpu", measured.cpu},
      {"cpu_model", measured.cpu_model},
      {"multiplex", measured.multiplex},
      {"order", measured.order == wire::RUN_ORDER_SEQUENTIAL ? "sequential" : "interleaved"},
      {"cooldown_ms", measured.cooldown_ms},
      {"max_temp_mc", measured.max_temp_mc}};
  return key.dump();
}

std::vector<RunMeta::Inputs> VariantInputs(const KernelDir& dir, const Manifest& manifest) {
  std::map<std::string, std::string> hashes;  // test data directory -> its hash
  std::vector<RunMeta::Inputs> out;
  for (const KernelVariant& v : dir.variants) {
    const std::string data =
        (v.test_data.empty() ? RunDirUnderRoot(dir.kernel) + "/test_data" : v.test_data) + "/";
    auto [it, added] = hashes.emplace(data, "");
    if (added) {
      std::string files;
      for (const FileEntry& f : manifest.files) {
        if (f.path.starts_with(data)) files += f.path.substr(data.size()) + " " + f.hash + "\n";
      }
      it->second = HashBytes(files);
    }
    out.push_back({v.args, it->second, v.work});
  }
  return out;
}

namespace {

// A variant built for another architecture than the agent's is refused before anything runs
// (unless the agent runs ELFs through a wrapper, e.g. qemu-user).
Status CheckArchitecture(const KernelDir& dir, const wire::Capabilities& caps,
                         const std::string& agent) {
  const std::string& arch = caps.cpu().arch();
  if (caps.exec_wrapper_size() > 0 || arch.empty()) return Status::Ok();
  for (const KernelVariant& v : dir.variants) {
    KT_ASSIGN_OR_RETURN(const std::string head, ReadFilePrefix(dir.root + "/" + v.elf_path, 64));
    const std::string elf = ElfArch(head);
    if (!elf.empty() && elf != arch) {
      return InvalidArgument("variant " + v.name + " is built for " + elf + " but agent " + agent +
                             " is " + arch + " (khost tune with a toolchain for " + arch +
                             ", or a " + elf + " agent)");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<AgentPlan> PrepareAgent(const MeasureOptions& opts, const KernelDir& dir,
                               const AgentSession& session) {
  const wire::Capabilities& caps = session.conn->hello().capabilities();
  const uint32_t cpus = caps.cpu_count();
  if (opts.cpu >= 0 && static_cast<uint32_t>(opts.cpu) >= cpus) {
    return InvalidArgument("--cpu " + std::to_string(opts.cpu) + ": agent " + session.name +
                           " has " + std::to_string(cpus) + " CPUs (0-" + std::to_string(cpus - 1) +
                           ")");
  }
  if (!caps.running_as_root() && caps.has_perf_event_paranoid() &&
      caps.perf_event_paranoid() >= 2) {
    std::cerr << "khost: agent " << session.name << " is not root and perf_event_paranoid is "
              << caps.perf_event_paranoid()
              << ": events count user space only, as perf stat falls back to (:u)\n";
  }
  AgentPlan plan;
  plan.cpu = CpuFromWire(caps.cpu());
  KT_ASSIGN_OR_RETURN(const EventCatalog catalog, EventCatalog::ForCpu(plan.cpu, opts.cpu_model));
  plan.core = catalog.core();
  KT_ASSIGN_OR_RETURN(const std::vector<EventGroup> groups, GroupsFor(catalog));
  KT_ASSIGN_OR_RETURN(plan.selection, SelectEvents(opts.events, groups, catalog));
  for (const std::string& e : opts.record) {
    auto spec = catalog.Parse(e);
    if (!spec.ok()) return spec.status().WithContext("--record");
  }
  if (opts.max_temp_mc > 0 && !HottestZoneMc(SystemCheckFromWire(caps.system()))) {
    return InvalidArgument("--max-temp: agent " + session.name +
                           " reports no thermal zone with a temperature (/sys/class/thermal)");
  }
  KT_RETURN_IF_ERROR(CheckArchitecture(dir, caps, session.name));
  return plan;
}

}  // namespace ktune::host
