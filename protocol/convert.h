// Conversions between ktune's shared structs (common/) and their wire messages, kept next to
// the .proto so that one place knows both shapes.
#pragma once

#include "common/cpu.h"
#include "common/manifest.h"
#include "common/profile.h"
#include "common/racing.h"
#include "common/results.h"
#include "common/status.h"
#include "common/system_check.h"
#include "protocol/ktune.pb.h"

namespace ktune {

wire::Envelope ErrorMessage(const Status& status);
Status StatusFromWire(const wire::Error& error);

// A request's adaptive repetitions (its `adaptive`, capped at its `repetitions`); nullopt for
// fixed repetitions.
std::optional<RacingOptions> RacingFromWire(const wire::RunRequest& req);

wire::PushManifest ManifestToWire(const Manifest& m);
Manifest ManifestFromWire(const wire::PushManifest& m);

// The wire form carries only what the agent measured; names, ELF and parameters come from the
// RunRequest's variant, which both sides hold.
void RowToWire(const RepetitionRow& row, wire::RepetitionResult* out);
RepetitionRow RowFromWire(const wire::RepetitionResult& r, const wire::Variant& variant);

Params ParamsFromWire(const wire::Variant& v);
Params ShapeFromWire(const wire::Variant& v);

void ProfileToWire(const Profile& p, wire::SampleProfile* out);
Profile ProfileFromWire(const wire::SampleProfile& p);

void CpuToWire(const CpuId& cpu, wire::CpuIdentity* out);
CpuId CpuFromWire(const wire::CpuIdentity& cpu);

void SystemCheckToWire(const SystemCheck& c, wire::SystemCheck* out);
SystemCheck SystemCheckFromWire(const wire::SystemCheck& c);

}  // namespace ktune
