#include "agent/server/run_job.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "agent/store/run_files.h"
#include "common/events.h"
#include "common/manifest.h"
#include "common/racing.h"
#include "protocol/convert.h"

namespace ktune::agent {
namespace {

// Adaptive repetitions' options (khost checks them too; a request is still untrusted).
Status CheckAdaptive(const wire::RunRequest& req) {
  if (!req.has_adaptive()) return Status::Ok();
  const wire::AdaptiveReps& a = req.adaptive();
  if (a.min_reps() < kMinRacingReps || a.min_reps() > req.repetitions()) {
    return InvalidArgument("adaptive repetitions need 4 <= min_reps <= max_reps, not " +
                           std::to_string(a.min_reps()) + " and " +
                           std::to_string(req.repetitions()));
  }
  if (!(a.target_ci() > 0 && a.target_ci() < 1)) {
    return InvalidArgument("adaptive repetitions need a target interval between 0 and 100%");
  }
  if (req.order() == wire::RUN_ORDER_SEQUENTIAL) {
    return InvalidArgument("adaptive repetitions run in interleaved rounds, not sequentially");
  }
  return Status::Ok();
}

// What a request must ask, whatever the bundle: repetitions, variants, a CPU this machine has.
Status CheckShape(const wire::RunRequest& req) {
  if (req.repetitions() == 0) return InvalidArgument("repetitions must be at least 1");
  KT_RETURN_IF_ERROR(CheckAdaptive(req));
  if (req.variants_size() == 0) return InvalidArgument("run request names no variant");
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (req.cpu() < -1 || req.cpu() >= cpus) {
    return InvalidArgument("cannot pin to CPU " + std::to_string(req.cpu()) +
                           ": this machine has " + std::to_string(cpus) + " CPUs (0-" +
                           std::to_string(cpus - 1) + ")");
  }
  return Status::Ok();
}

// The events to count and to sample, in this machine's catalog, and how to sample.
Status AddEvents(const wire::RunRequest& req, const EventCatalog& catalog, Measurer::Job& job) {
  for (const std::string& e : req.events()) {
    KT_ASSIGN_OR_RETURN(EventSpec spec, catalog.Parse(e));
    job.events.push_back(std::move(spec));
  }
  MeasurePlan& plan = job.plan;
  for (const std::string& e : req.record()) {
    KT_ASSIGN_OR_RETURN(EventSpec spec, catalog.Parse(e));
    plan.record.push_back(std::move(spec));
  }
  if (req.sample_period() && req.sample_freq()) {
    return InvalidArgument("a sample period or a sample frequency, not both");
  }
  plan.sampling.period = req.sample_period();
  plan.sampling.freq = req.sample_period() ? 0 : req.sample_freq() ? req.sample_freq() : 4001;
  plan.sampling.callchain = req.callchain();
  return Status::Ok();
}

// The variants, each ELF found in the bundle's manifest (for its hash).
Result<std::vector<PlanVariant>> VariantsOf(const wire::RunRequest& req, const Manifest& manifest) {
  std::vector<PlanVariant> variants;
  for (const wire::Variant& v : req.variants()) {
    KT_RETURN_IF_ERROR(ValidateBundlePath(v.elf_path()));
    const FileEntry* elf = nullptr;
    for (const FileEntry& f : manifest.files) {
      if (f.path == v.elf_path()) elf = &f;
    }
    if (!elf) {
      return NotFound("variant " + v.name() + ": " + v.elf_path() + " is not in the bundle");
    }
    // A shape's pairs go into rows as the parameters do (khost names no path after them
    // unchecked: common/results.h ShapeDirName).
    for (const auto* list : {&v.params(), &v.shape()}) {
      for (const wire::Param& p : *list) {
        if (Status ok = ValidateParam(p.name(), p.value()); !ok.ok()) {
          return InvalidArgument("variant " + v.name() + ": " + ok.message());
        }
      }
    }
    if (!v.test_data().empty()) {
      if (Status ok = ValidateBundlePath(v.test_data()); !ok.ok()) {
        return InvalidArgument("variant " + v.name() + ": test data: " + ok.message());
      }
    }
    variants.push_back({v.name(), v.elf_path(), elf->hash,
                        std::vector<std::string>(v.args().begin(), v.args().end()),
                        ParamsFromWire(v), ShapeFromWire(v), v.test_data()});
  }
  return variants;
}

// The stored plan of a run that already started (being resumed): the same passes again.
Status UseStoredPasses(const RunFiles& files, const EventCatalog& catalog, Measurer::Job& job) {
  KT_ASSIGN_OR_RETURN(std::optional<wire::RunAccepted> accepted, files.ReadAccepted());
  if (!accepted) return Status::Ok();
  MeasurePlan& plan = job.plan;
  plan.passes.clear();
  for (const wire::Pass& p : accepted->passes()) {
    std::vector<EventSpec> pass;
    for (const std::string& e : p.events()) {
      KT_ASSIGN_OR_RETURN(EventSpec spec, catalog.Parse(e));
      pass.push_back(std::move(spec));
    }
    plan.passes.push_back(std::move(pass));
  }
  job.planned = true;
  return Status::Ok();
}

}  // namespace

Result<Measurer::Job> JobFor(const wire::RunRequest& req, Store& store, const CpuId& cpu) {
  KT_RETURN_IF_ERROR(ValidateRunId(req.run_id()));
  KT_ASSIGN_OR_RETURN(Manifest manifest, store.LoadManifest(req.bundle_id()));
  KT_ASSIGN_OR_RETURN(std::string tree, store.Materialize(req.bundle_id()));
  KT_RETURN_IF_ERROR(CheckShape(req));
  Measurer::Job job;
  job.bundle_id = req.bundle_id();
  MeasurePlan& plan = job.plan;
  plan.run_id = req.run_id();
  plan.board = CpuFingerprint(cpu);
  plan.tree_dir = tree;
  plan.repetitions = req.repetitions();
  plan.warmup = req.warmup();
  plan.order =
      req.order() == wire::RUN_ORDER_SEQUENTIAL ? RunOrder::kSequential : RunOrder::kInterleaved;
  plan.seed = req.seed();
  plan.racing = RacingFromWire(req);
  plan.max_time_ns = req.adaptive().max_time_ms() * 1000000ull;
  plan.cooldown_ns = req.cooldown_ms() * 1000000ull;
  plan.max_temp_mc = req.max_temp_mc();
  plan.timeout_ns = req.timeout_ms() * 1000000ull;
  plan.cpu = req.cpu();
  plan.multiplex = req.multiplex();
  KT_ASSIGN_OR_RETURN(const EventCatalog catalog, EventCatalog::ForCpu(cpu, req.cpu_model()));
  KT_RETURN_IF_ERROR(AddEvents(req, catalog, job));
  KT_ASSIGN_OR_RETURN(plan.variants, VariantsOf(req, manifest));
  KT_ASSIGN_OR_RETURN(const RunLayout run, store.RunDir(req.run_id()));
  job.journal = JournalFilesOf(run);
  plan.work_dir = store.WorkDir(req.run_id());
  KT_RETURN_IF_ERROR(UseStoredPasses(store.RunFilesOf(req.run_id()), catalog, job));
  return job;
}

JournalFiles JournalFilesOf(const RunLayout& run) {
  return {.results = run.results(), .profiles = run.profiles()};
}

}  // namespace ktune::agent
