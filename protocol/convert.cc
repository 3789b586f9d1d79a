#include "protocol/convert.h"

namespace ktune {

wire::Envelope ErrorMessage(const Status& status) {
  wire::Envelope env;
  auto* e = env.mutable_error();
  e->set_code(static_cast<wire::ErrorCode>(status.code()));
  e->set_message(status.message());
  return env;
}

Status StatusFromWire(const wire::Error& error) {
  ErrorCode code = ErrorCode::kInternal;
  if (error.code() > 0 && error.code() <= static_cast<int>(ErrorCode::kResourceExhausted)) {
    code = static_cast<ErrorCode>(error.code());
  }
  return Status(code, error.message());
}

std::optional<RacingOptions> RacingFromWire(const wire::RunRequest& req) {
  if (!req.has_adaptive()) return std::nullopt;
  return RacingOptions{req.adaptive().min_reps(), req.repetitions(), req.adaptive().target_ci()};
}

wire::PushManifest ManifestToWire(const Manifest& m) {
  wire::PushManifest out;
  out.set_kernel(m.kernel);
  for (const FileEntry& f : m.files) {
    auto* e = out.add_files();
    e->set_path(f.path);
    e->set_hash(f.hash);
    e->set_size_bytes(f.size_bytes);
    e->set_mode(f.mode);
  }
  return out;
}

Manifest ManifestFromWire(const wire::PushManifest& m) {
  Manifest out;
  out.kernel = m.kernel();
  for (const auto& f : m.files()) {
    out.files.push_back({f.path(), f.hash(), f.size_bytes(), f.mode() & 0777});
  }
  return out;
}

void RowToWire(const RepetitionRow& row, wire::RepetitionResult* out) {
  out->set_run_id(row.run_id);
  out->set_board(row.board);
  out->set_elf_hash(row.elf_hash);
  out->set_timestamp_ns(row.timestamp_ns);
  out->set_variant_index(row.variant_index);
  out->set_pass(row.pass);
  out->set_repetition(row.repetition);
  out->set_sampling(row.sampling);
  out->set_valid(row.valid);
  out->set_outcome_kind(static_cast<wire::OutcomeKind>(row.outcome.kind));
  out->set_outcome_code(row.outcome.code);
  for (const MeasuredValue& v : row.values) {
    auto* w = out->add_values();
    w->set_name(v.name);
    w->set_value(v.value);
    w->set_unit(v.unit);
    w->set_enabled_ns(v.enabled_ns);
    w->set_running_ns(v.running_ns);
    w->set_status(static_cast<wire::ValueStatus>(v.status));
  }
}

void ProfileToWire(const Profile& p, wire::SampleProfile* out) {
  for (const auto& e : p.events) out->add_events(e);
  for (const auto& u : p.unsupported) out->add_unsupported(u);
  for (const SampleHit& h : p.hits) {
    auto* w = out->add_hits();
    w->set_event(h.event);
    w->set_ip(h.ip);
    w->set_count(h.count);
    w->set_period(h.period);
  }
  for (const SampleChain& c : p.chains) {
    auto* w = out->add_chains();
    w->set_event(c.event);
    for (uint64_t ip : c.ips) w->add_ips(ip);
    w->set_count(c.count);
    w->set_period(c.period);
  }
  for (const Mapping& m : p.mappings) {
    auto* w = out->add_mappings();
    w->set_start(m.start);
    w->set_len(m.len);
    w->set_pgoff(m.pgoff);
    w->set_file(m.file);
  }
  out->set_samples(p.samples);
  out->set_lost(p.lost);
  out->set_truncated(p.truncated);
}

Profile ProfileFromWire(const wire::SampleProfile& w) {
  Profile p;
  p.events.assign(w.events().begin(), w.events().end());
  p.unsupported.assign(w.unsupported().begin(), w.unsupported().end());
  for (const auto& h : w.hits()) p.hits.push_back({h.event(), h.ip(), h.count(), h.period()});
  for (const auto& c : w.chains()) {
    p.chains.push_back({c.event(), {c.ips().begin(), c.ips().end()}, c.count(), c.period()});
  }
  for (const auto& m : w.mappings())
    p.mappings.push_back({m.start(), m.len(), m.pgoff(), m.file()});
  p.samples = w.samples();
  p.lost = w.lost();
  p.truncated = w.truncated();
  return p;
}

void CpuToWire(const CpuId& cpu, wire::CpuIdentity* out) {
  out->set_arch(cpu.arch);
  out->set_riscv_id(cpu.riscv_id);
  out->set_x86_vendor(cpu.x86_vendor);
  out->set_x86_family(cpu.x86_family);
  out->set_x86_model(cpu.x86_model);
  out->set_model_name(cpu.model_name);
}

CpuId CpuFromWire(const wire::CpuIdentity& cpu) {
  CpuId out;
  out.arch = cpu.arch();
  out.riscv_id = cpu.riscv_id();
  out.x86_vendor = cpu.x86_vendor();
  out.x86_family = cpu.x86_family();
  out.x86_model = cpu.x86_model();
  out.model_name = cpu.model_name();
  return out;
}

void SystemCheckToWire(const SystemCheck& c, wire::SystemCheck* out) {
  out->set_cpu(c.cpu);
  if (c.online_cpus) out->set_online_cpus(*c.online_cpus);
  if (c.governor) out->set_governor(*c.governor);
  if (c.min_freq_khz) out->set_min_freq_khz(*c.min_freq_khz);
  if (c.max_freq_khz) out->set_max_freq_khz(*c.max_freq_khz);
  if (c.cur_freq_khz) out->set_cur_freq_khz(*c.cur_freq_khz);
  if (c.boost) out->set_boost(*c.boost);
  for (const ThermalZone& z : c.thermal_zones) {
    auto* w = out->add_thermal_zones();
    w->set_type(z.type);
    if (z.temp_mc) w->set_temp_mc(*z.temp_mc);
  }
  if (c.isolated) out->set_isolated(*c.isolated);
  if (c.nohz_full) out->set_nohz_full(*c.nohz_full);
  if (c.smt_siblings) out->set_smt_siblings(*c.smt_siblings);
  if (c.caches) out->set_caches(*c.caches);
  if (c.aslr) out->set_aslr(*c.aslr);
  if (c.load_1min) out->set_load_1min(*c.load_1min);
  if (c.other_runnable) out->set_other_runnable(*c.other_runnable);
}

SystemCheck SystemCheckFromWire(const wire::SystemCheck& c) {
  SystemCheck out;
  out.cpu = c.cpu();
  if (c.has_online_cpus()) out.online_cpus = c.online_cpus();
  if (c.has_governor()) out.governor = c.governor();
  if (c.has_min_freq_khz()) out.min_freq_khz = c.min_freq_khz();
  if (c.has_max_freq_khz()) out.max_freq_khz = c.max_freq_khz();
  if (c.has_cur_freq_khz()) out.cur_freq_khz = c.cur_freq_khz();
  if (c.has_boost()) out.boost = c.boost();
  for (const auto& z : c.thermal_zones()) {
    out.thermal_zones.push_back(
        {z.type(), z.has_temp_mc() ? std::optional<int64_t>(z.temp_mc()) : std::nullopt});
  }
  if (c.has_isolated()) out.isolated = c.isolated();
  if (c.has_nohz_full()) out.nohz_full = c.nohz_full();
  if (c.has_smt_siblings()) out.smt_siblings = c.smt_siblings();
  if (c.has_caches()) out.caches = c.caches();
  if (c.has_aslr()) out.aslr = c.aslr();
  if (c.has_load_1min()) out.load_1min = c.load_1min();
  if (c.has_other_runnable()) out.other_runnable = c.other_runnable();
  return out;
}

namespace {

Params PairsFromWire(const google::protobuf::RepeatedPtrField<wire::Param>& pairs) {
  Params p;
  for (const auto& pair : pairs) p.emplace_back(pair.name(), pair.value());
  return p;
}

}  // namespace

Params ParamsFromWire(const wire::Variant& v) {
  return PairsFromWire(v.params());
}

Params ShapeFromWire(const wire::Variant& v) {
  return PairsFromWire(v.shape());
}

RepetitionRow RowFromWire(const wire::RepetitionResult& r, const wire::Variant& variant) {
  RepetitionRow row;
  row.run_id = r.run_id();
  row.board = r.board();
  row.elf_hash = r.elf_hash();
  row.timestamp_ns = r.timestamp_ns();
  row.variant_index = r.variant_index();
  row.variant = variant.name();
  row.elf = variant.elf_path();
  row.params = ParamsFromWire(variant);
  row.shape = ShapeFromWire(variant);
  row.pass = r.pass();
  row.repetition = r.repetition();
  row.sampling = r.sampling();
  row.valid = r.valid();
  row.outcome.kind = r.outcome_kind() <= wire::OUTCOME_LAUNCH_FAILED
                         ? static_cast<OutcomeKind>(r.outcome_kind())
                         : OutcomeKind::kLaunchFailed;
  row.outcome.code = r.outcome_code();
  for (const auto& w : r.values()) {
    MeasuredValue v;
    v.name = w.name();
    v.value = w.value();
    v.unit = w.unit();
    v.enabled_ns = w.enabled_ns();
    v.running_ns = w.running_ns();
    v.status = w.status() <= wire::VALUE_PARTIAL ? static_cast<ValueStatus>(w.status())
                                                 : ValueStatus::kMissing;
    row.values.push_back(std::move(v));
  }
  return row;
}

}  // namespace ktune
