#include "host/run_receiver.h"

#include <algorithm>
#include <iostream>
#include <set>

#include "host/progress.h"
#include "host/samples.h"
#include "protocol/convert.h"

namespace ktune {
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

// The last non-empty line of a workload's output, for one-line failure notes.
std::string LastLine(const std::string& text) {
  const size_t end = text.find_last_not_of("\n\r ");
  if (end == std::string::npos) return "";
  const size_t nl = text.rfind('\n', end);
  const size_t begin = nl == std::string::npos ? 0 : nl + 1;
  return text.substr(begin, end - begin + 1);
}

}  // namespace

Result<ReceivedRun> ReceiveRun(AgentConnection& conn, const wire::Envelope& ask,
                               ReceiveSetup setup) {
  KT_ASSIGN_OR_RETURN(ResultsWriter writer, ResultsWriter::Open(setup.results_path));
  RunMeta& meta = setup.meta;
  const std::string meta_path = RunMetaPath(writer.path());
  meta.complete = false;
  KT_RETURN_IF_ERROR(WriteRunMeta(meta_path, meta));
  if (writer.dropped_bytes()) {
    std::cerr << setup.command << ": " << writer.path() << ": dropped an unterminated last line ("
              << writer.dropped_bytes() << " bytes), as the agent's journal does\n";
  }

  // Each variant runs once per pass of the agent's plan (until it arrives, assume one), then
  // once more, sampling, when events are recorded.
  const wire::RunRequest* request = setup.request ? &*setup.request : nullptr;
  size_t passes = 1;
  auto variants = [&] { return request ? static_cast<size_t>(request->variants_size()) : 0; };
  auto reps = [&] { return request ? size_t{request->repetitions()} : 1; };
  auto sampling = [&] { return request && request->record_size() > 0 ? size_t{1} : 0; };
  auto per_variant = [&] { return passes * reps() + sampling(); };
  auto total = [&] { return variants() * per_variant(); };
  Progress progress(total(), setup.show_progress);
  auto describe = [&](size_t step) {
    const size_t v = step / per_variant(), within = step % per_variant();
    std::string what = "variant " + std::to_string(v + 1) + "/" + std::to_string(variants()) + " " +
                       request->variants(static_cast<int>(v)).name();
    if (within >= passes * reps()) return what + " sampling";
    if (passes > 1) {
      what += " pass " + std::to_string(within / reps() + 1) + "/" + std::to_string(passes);
    }
    return what + " rep " + std::to_string(within % reps() + 1) + "/" + std::to_string(reps());
  };

  std::optional<SamplesWriter> samples;
  std::set<std::string> unsampled;
  std::set<uint32_t> noted;
  size_t rows_new = 0;
  RunStream stream;
  stream.on_queued = [&](const wire::RunQueued& q) {
    progress.Note(setup.command + ": the agent is measuring another run; this one is queued, " +
                  std::to_string(q.position()) + " ahead of it");
  };
  stream.on_accepted = [&](const wire::RunAccepted& a) -> Status {
    if (a.has_request()) setup.request = a.request();
    request = setup.request ? &*setup.request : nullptr;
    if (!request) return ProtocolError("the agent did not say what the fetched run measures");
    if (request->run_id() != meta.run_id) {
      return ProtocolError("the agent sent run " + request->run_id() + ", not " + meta.run_id);
    }
    passes = std::max(1, a.passes_size());
    progress.SetTotal(total());
    meta.plan = a.plan();
    meta.passes.clear();
    for (const auto& p : a.passes()) meta.passes.emplace_back(p.events().begin(), p.events().end());
    if (meta.events.empty()) meta.events.assign(request->events().begin(), request->events().end());
    if (meta.requested.empty()) meta.requested = meta.events;
    if (a.rows_stored() == 0 && (passes > 1 || a.plan() == "multiplexed")) {
      progress.Note(setup.command + ": " + DescribePlan(a));
    }
    if (sampling()) {
      KT_ASSIGN_OR_RETURN(SamplesWriter w, SamplesWriter::Open(SamplesPath(writer.path())));
      samples.emplace(std::move(w));
    }
    if (writer.rows().size() < total()) {
      progress.Update(writer.rows().size(), describe(writer.rows().size()));
    }
    return WriteRunMeta(meta_path, meta);
  };
  stream.on_row = [&](const wire::RepetitionResult& r) -> Status {
    if (r.variant_index() >= static_cast<uint32_t>(request->variants_size())) {
      return ProtocolError("agent sent a row for an unknown variant");
    }
    if (r.run_id() != meta.run_id) {
      return ProtocolError("the agent sent a row of run " + r.run_id() + " in run " + meta.run_id);
    }
    RepetitionRow row = RowFromWire(r, request->variants(static_cast<int>(r.variant_index())));
    KT_ASSIGN_OR_RETURN(const bool added, writer.Append(row));
    if (!added) return Status::Ok();
    ++rows_new;
    if (!row.valid && noted.insert(row.variant_index).second) {
      const std::string why = LastLine(r.output_excerpt());
      progress.Note(setup.command + ": " + row.variant + " repetition " +
                    std::to_string(row.repetition) + " failed: " + row.outcome.ToString() +
                    (why.empty() ? "" : ": " + why));
    }
    const size_t done = writer.rows().size();
    if (done < total()) progress.Update(done, describe(done));
    return Status::Ok();
  };
  stream.on_profile = [&](const wire::SampleProfile& p) -> Status {
    if (!samples) return ProtocolError("agent sent samples for a run that records none");
    ProfileRecord record{p.variant_index(), p.pass(), p.repetition(), ProfileFromWire(p)};
    for (const std::string& u : record.profile.unsupported) {
      if (unsampled.insert(u).second) {
        progress.Note(setup.command + ": sampling " + NotSupported(u));
      }
    }
    return samples->Append(record);
  };
  Result<wire::RunDone> done = StreamRun(conn, ask, stream);
  progress.Finish();
  Status status = done.status();
  if (Status synced = writer.Finish(); status.ok()) status = synced;
  if (samples) {
    if (Status synced = samples->Finish(); status.ok()) status = synced;
  }
  if (status.ok()) {
    meta.complete = done->complete() && writer.rows().size() >= total();
    status = WriteRunMeta(meta_path, meta);
  }
  if (!status.ok()) {
    return status.WithContext(std::to_string(writer.rows().size()) + " of " +
                              std::to_string(total()) + " rows saved in " + writer.path());
  }
  ReceivedRun out;
  out.rows = writer.rows();
  out.rows_new = rows_new;
  out.rows_planned = total();
  out.complete = meta.complete;
  out.sampled = samples.has_value();
  return out;
}

}  // namespace ktune
