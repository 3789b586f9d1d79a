#include "host/remote/run_receiver.h"

#include <algorithm>
#include <iostream>
#include <set>

#include "common/strings.h"
#include "host/results/samples.h"
#include "host/util/progress.h"
#include "host/util/subprocess.h"
#include "protocol/convert.h"

namespace ktune::host {
namespace {

// "2 passes of events that count together (counter budget 4, probed): pass 1: a b; pass 2: c".
std::string DescribePlan(const wire::RunAccepted& a) {
  std::string s;
  if (a.plan() == "multiplexed") {
    s = "all events at once, multiplexed and scaled (--multiplex)";
  } else {
    s = std::to_string(a.passes_size()) + " passes of events that count together (counter budget " +
        std::to_string(a.counter_budget()) + ", " + a.plan() + ")";
  }
  for (int i = 0; i < a.passes_size(); ++i) {
    s += (i ? "; pass " : ": pass ") + std::to_string(i + 1) + ":";
    for (const std::string& e : a.passes(i).events()) s += " " + e;
  }
  return s;
}

}  // namespace

Result<std::unique_ptr<RunSink>> RunSink::Open(ReceiveSetup setup) {
  KT_ASSIGN_OR_RETURN(ResultsWriter writer, ResultsWriter::Open(setup.results_path));
  std::unique_ptr<RunSink> sink(new RunSink(std::move(setup), std::move(writer)));
  sink->setup_.meta.complete = false;
  KT_RETURN_IF_ERROR(WriteRunMeta(sink->meta_path_, sink->setup_.meta));
  if (sink->writer_.dropped_bytes()) {
    sink->progress_.Note(sink->setup_.command + ": " + sink->writer_.path() +
                         ": dropped an unterminated last line (" +
                         std::to_string(sink->writer_.dropped_bytes()) +
                         " bytes); what it held comes again from the agent's journal");
  }
  return sink;
}

RunSink::RunSink(ReceiveSetup setup, ResultsWriter writer)
    : setup_(std::move(setup)),
      meta_path_(RunMetaPath(writer.path())),
      writer_(std::move(writer)),
      progress_(0, setup_.show_progress) {
  passes_ = std::max<size_t>(1, setup_.meta.passes.size());  // a resumed run's known plan
  progress_.SetTotal(Total());
}

// Each variant runs once per pass of the agent's plan, then once more, sampling, when events are
// recorded.
size_t RunSink::PerVariant() const {
  if (!setup_.request) return 0;
  return passes_ * setup_.request->repetitions() + (setup_.request->record_size() > 0 ? 1 : 0);
}

size_t RunSink::Total() const {
  return setup_.request ? static_cast<size_t>(setup_.request->variants_size()) * PerVariant() : 0;
}

size_t RunSink::RowsPerVariant() {
  std::lock_guard<std::mutex> lock(mu_);
  return PerVariant();
}

Status RunSink::AddReused(const std::vector<RepetitionRow>& rows) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const RepetitionRow& row : rows) {
    KT_RETURN_IF_ERROR(Local(writer_.Append(row).status()));
  }
  return Status::Ok();
}

std::vector<RepetitionRow> RunSink::Rows() {
  std::lock_guard<std::mutex> lock(mu_);
  return writer_.rows();
}

std::string RunSink::Describe(size_t step) const {
  const wire::RunRequest& request = *setup_.request;
  const size_t reps = request.repetitions();
  if (request.has_adaptive()) {
    // Rounds shrink as variants stop: the round is the last row's.
    const std::vector<RepetitionRow>& rows = writer_.rows();
    if (!rows.empty() && rows.back().sampling) return "sampling";
    const uint32_t round = rows.empty() ? 0 : rows.back().repetition;
    return "round " + std::to_string(round + 1) + " of at most " + std::to_string(reps);
  }
  if (request.order() == wire::RUN_ORDER_INTERLEAVED) {
    // Rounds of every variant in every pass, then one of every variant's sampling run.
    const size_t per_round = passes_ * static_cast<size_t>(request.variants_size());
    if (step >= per_round * reps) return "sampling";
    return "round " + std::to_string(step / per_round + 1) + "/" + std::to_string(reps);
  }
  const size_t v = step / PerVariant(), within = step % PerVariant();
  std::string what = "variant " + std::to_string(v + 1) + "/" +
                     std::to_string(request.variants_size()) + " " +
                     request.variants(static_cast<int>(v)).name();
  if (within >= passes_ * reps) return what + " sampling";
  if (passes_ > 1) {
    what += " pass " + std::to_string(within / reps + 1) + "/" + std::to_string(passes_);
  }
  return what + " rep " + std::to_string(within % reps + 1) + "/" + std::to_string(reps);
}

Status RunSink::UpdateMeta(const std::function<void(RunMeta&)>& change) {
  std::lock_guard<std::mutex> lock(mu_);
  change(setup_.meta);
  return WriteRunMeta(meta_path_, setup_.meta);
}

Status RunSink::LocalFailure() {
  std::lock_guard<std::mutex> lock(mu_);
  return local_failure_;
}

void RunSink::Note(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  progress_.Note(line);
}

Status RunSink::Accepted(const wire::RunAccepted& a, const std::string& run_id,
                         StreamTally* tally) {
  RunMeta& meta = setup_.meta;
  if (a.has_request() && !setup_.request) setup_.request = a.request();
  if (!setup_.request) return ProtocolError("the agent did not say what the fetched run measures");
  const std::string sent = a.has_request() ? a.request().run_id() : run_id;
  if (sent != run_id) return ProtocolError("the agent sent run " + sent + ", not " + run_id);
  passes_ = std::max(1, a.passes_size());
  progress_.SetTotal(Total());
  const wire::RunRequest& request = *setup_.request;
  tally->rows_per_variant = PerVariant();
  meta.plan = a.plan();
  meta.passes.clear();
  for (const auto& p : a.passes()) meta.passes.emplace_back(p.events().begin(), p.events().end());
  if (meta.events.empty()) meta.events.assign(request.events().begin(), request.events().end());
  if (meta.requested.empty()) meta.requested = meta.events;
  if (!meta.adaptive) meta.adaptive = RacingFromWire(request);
  if (a.rows_stored() == 0 && (passes_ > 1 || a.plan() == "multiplexed") &&
      noted_plan_.insert(DescribePlan(a)).second) {
    progress_.Note(setup_.command + ": " + DescribePlan(a));
  }
  if (a.has_system()) NoteSystem(SystemCheckFromWire(a.system()), a.rows_stored() == 0);
  if (request.record_size() > 0 && !samples_) {
    KT_ASSIGN_OR_RETURN(SamplesWriter w, SamplesWriter::Open(SamplesPath(writer_.path())));
    samples_.emplace(std::move(w));
  }
  if (writer_.rows().size() < Total()) {
    progress_.Update(writer_.rows().size(), Describe(writer_.rows().size()));
  }
  return WriteRunMeta(meta_path_, meta);
}

void RunSink::NoteSystem(const SystemCheck& check, bool starting) {
  if (!setup_.meta.system) setup_.meta.system = check;
  if (!starting || !setup_.say_system_warnings) return;
  for (const std::string& w : SystemWarnings(check)) {
    if (noted_system_.insert(w).second) progress_.Note(setup_.command + ": warning: " + w);
  }
}

Status RunSink::Row(const wire::RepetitionResult& r, const std::string& run_id,
                    const std::vector<uint32_t>& variants, StreamTally* tally) {
  const wire::RunRequest& request = *setup_.request;
  if (r.run_id() != run_id) {
    return ProtocolError("the agent sent a row of run " + r.run_id() + " in run " + run_id);
  }
  const size_t local = r.variant_index();
  const size_t global = variants.empty() ? local : local < variants.size() ? variants[local] : ~0u;
  if (global >= static_cast<size_t>(request.variants_size())) {
    return ProtocolError("agent sent a row for an unknown variant");
  }
  RepetitionRow row = RowFromWire(r, request.variants(static_cast<int>(global)));
  row.variant_index = static_cast<uint32_t>(global);
  KT_ASSIGN_OR_RETURN(const ResultsWriter::Stored stored, writer_.Append(row));
  ++tally->rows[static_cast<uint32_t>(local)];
  if (stored == ResultsWriter::Stored::kCompleted) ++rows_completed_;
  if (stored == ResultsWriter::Stored::kConflicting) ++rows_conflicting_;
  if (setup_.on_row &&
      (stored == ResultsWriter::Stored::kNew || stored == ResultsWriter::Stored::kCompleted)) {
    setup_.on_row(row);
  }
  if (stored != ResultsWriter::Stored::kNew) return Status::Ok();
  ++rows_new_;
  if (!row.valid && noted_.insert(row.variant_index).second) {
    const std::string why = LastLine(r.output_excerpt());
    progress_.Note(setup_.command + ": " + row.variant + " repetition " +
                   std::to_string(row.repetition) + " failed: " + row.outcome.ToString() +
                   (why.empty() ? "" : ": " + EscapedText(why)));
  }
  const size_t done = writer_.rows().size();
  if (done < Total()) progress_.Update(done, Describe(done));
  return Status::Ok();
}

Status RunSink::Local(Status s) {
  if (!s.ok() && s.code() != ErrorCode::kProtocol && local_failure_.ok()) local_failure_ = s;
  return s;
}

RunStream RunSink::StreamOf(const std::string& run_id, std::vector<uint32_t> variants,
                            StreamTally* tally) {
  RunStream stream;
  stream.on_queued = [this](const wire::RunQueued& q) {
    Note(setup_.command + ": the agent is measuring another run; this one is queued, " +
         std::to_string(q.position()) + " ahead of it");
  };
  stream.on_accepted = [this, run_id, tally](const wire::RunAccepted& a) {
    std::lock_guard<std::mutex> lock(mu_);
    return Local(Accepted(a, run_id, tally));
  };
  stream.on_row = [this, run_id, variants, tally](const wire::RepetitionResult& r) {
    std::lock_guard<std::mutex> lock(mu_);
    return Local(Row(r, run_id, variants, tally));
  };
  stream.on_profile = [this, variants](const wire::SampleProfile& p) -> Status {
    std::lock_guard<std::mutex> lock(mu_);
    if (!samples_) return ProtocolError("agent sent samples for a run that records none");
    const uint32_t local = p.variant_index();
    if (!variants.empty() && local >= variants.size()) {
      return ProtocolError("agent sent samples for an unknown variant");
    }
    ProfileRecord record{variants.empty() ? local : variants[local], p.pass(), p.repetition(),
                         ProfileFromWire(p)};
    for (const std::string& u : record.profile.unsupported) {
      if (unsampled_.insert(u).second) {
        progress_.Note(setup_.command + ": sampling " + NotSupported(u));
      }
    }
    return Local(samples_->Append(record));
  };
  return stream;
}

Result<ReceivedRun> RunSink::Finish(Status status, bool agents_complete) {
  std::lock_guard<std::mutex> lock(mu_);
  progress_.Finish();
  if (Status synced = writer_.Finish(); status.ok()) status = synced;
  if (samples_) {
    if (Status synced = samples_->Finish(); status.ok()) status = synced;
  }
  if (rows_completed_) {
    progress_.Note(setup_.command + ": completed " + std::to_string(rows_completed_) +
                   " repetition" + (rows_completed_ == 1 ? "" : "s") + " that " + writer_.path() +
                   " held in part, from the agent's journal");
  }
  if (rows_conflicting_) {
    progress_.Note(setup_.command + ": " + writer_.path() +
                   " holds part of another measurement of " + std::to_string(rows_conflicting_) +
                   " repetition" + (rows_conflicting_ == 1 ? "" : "s") +
                   " than the agent's journal (another start time or outcome), which the journal "
                   "cannot complete: the run stays incomplete (khost run --resume will not "
                   "change that; khost run measures the kernel again)");
  }
  std::vector<RepetitionRow> rows = writer_.rows();
  const size_t superseded = DropSuperseded(setup_.meta, rows);
  if (status.ok()) {
    // Complete: the agents measured their whole plans and every row they journaled is in the file
    // whole. Adaptive repetitions end each variant when its race does: the agent's word is the
    // plan.
    setup_.meta.complete =
        agents_complete && rows_conflicting_ == 0 &&
        ((setup_.request && setup_.request->has_adaptive()) || rows.size() >= Total());
    status = WriteRunMeta(meta_path_, setup_.meta);
  }
  if (!status.ok()) {
    status = status.WithContext(std::to_string(writer_.rows().size()) + " of " +
                                std::to_string(Total()) + " rows saved in " + writer_.path());
    if (setup_.how_to_resume.empty()) return status;
    return Status(status.code(), status.message() + " (" + setup_.how_to_resume + ")");
  }
  ReceivedRun out;
  out.run.path = writer_.path();
  out.run.rows = std::move(rows);
  out.run.superseded_rows = superseded;
  out.run.duplicate_lines = writer_.duplicate_lines();
  out.run.first_duplicate_line = writer_.first_duplicate_line();
  KT_ASSIGN_OR_RETURN(out.run.metrics, MetricDefsOf(setup_.meta, meta_path_));
  out.run.meta = setup_.meta;
  if (samples_) out.profiles = samples_->records();
  out.rows_new = rows_new_;
  out.rows_planned = Total();
  out.complete = setup_.meta.complete;
  out.sampled = samples_.has_value();
  return out;
}

Result<ReceivedRun> ReceiveRun(AgentConnection& conn, const wire::Envelope& ask, ReceiveSetup setup,
                               std::vector<uint32_t> variants) {
  const std::string run_id = setup.meta.run_id;
  KT_ASSIGN_OR_RETURN(std::unique_ptr<RunSink> sink, RunSink::Open(std::move(setup)));
  StreamTally tally;
  Result<wire::RunDone> done =
      StreamRun(conn, ask, sink->StreamOf(run_id, std::move(variants), &tally));
  return sink->Finish(done.status(), done.ok() && done->complete());
}

}  // namespace ktune::host
