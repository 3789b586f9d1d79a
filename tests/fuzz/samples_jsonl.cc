// Fuzzes ParseSamples, the reader of a run's <run_id>.samples.jsonl (profiles an agent sent,
// kept beside the results; the file may be cut or edited), and what khost report --samples and
// --annotate do with what it read when no ELF can be read: Symbolize, SamplesTables,
// RenderSamplesJson and RenderAnnotated.
//
// Input: the text of a samples file.
//
// Asserts, beyond no crash and no sanitizer report:
// - records written back with SamplesWriter (the first of each repetition: the writer keeps one)
//   read back the same;
// - a variant's symbolized samples per event add up to the hits of that event the records hold.
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "host/report/samples_report.h"
#include "host/results/samples.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune::host {
namespace {

bool SameProfile(const Profile& a, const Profile& b) {
  if (a.hits.size() != b.hits.size() || a.chains.size() != b.chains.size() ||
      a.mappings.size() != b.mappings.size()) {
    return false;
  }
  for (size_t i = 0; i < a.hits.size(); ++i) {
    const SampleHit &x = a.hits[i], &y = b.hits[i];
    if (x.event != y.event || x.ip != y.ip || x.count != y.count || x.period != y.period) {
      return false;
    }
  }
  for (size_t i = 0; i < a.chains.size(); ++i) {
    const SampleChain &x = a.chains[i], &y = b.chains[i];
    if (x.event != y.event || x.ips != y.ips || x.count != y.count || x.period != y.period) {
      return false;
    }
  }
  for (size_t i = 0; i < a.mappings.size(); ++i) {
    const Mapping &x = a.mappings[i], &y = b.mappings[i];
    if (x.start != y.start || x.len != y.len || x.pgoff != y.pgoff || x.file != y.file) {
      return false;
    }
  }
  return a.events == b.events && a.unsupported == b.unsupported && a.samples == b.samples &&
         a.lost == b.lost && a.truncated == b.truncated;
}

}  // namespace
}  // namespace ktune::host

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  using namespace ktune::host;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto records = ParseSamples(text, "fuzz.samples.jsonl");
  if (!records.ok()) return 0;

  std::vector<ProfileRecord> kept;
  std::set<RowKey> keys;
  for (const ProfileRecord& r : *records) {
    if (keys.insert({r.variant_index, r.pass, r.repetition}).second) kept.push_back(r);
  }
  const std::string path = FuzzScratchDir() + "/run.samples.jsonl";
  ::unlink(path.c_str());
  auto writer = SamplesWriter::Open(path);
  FUZZ_CHECK_OK(writer);
  for (const ProfileRecord& r : *records) FUZZ_CHECK_OK(writer->Append(r));
  auto back = ReadSamples(path);
  FUZZ_CHECK(back.ok() && back->size() == kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    const ProfileRecord &x = (*back)[i], &y = kept[i];
    FUZZ_CHECK(x.variant_index == y.variant_index && x.pass == y.pass &&
               x.repetition == y.repetition && SameProfile(x.profile, y.profile));
  }

  const std::vector<VariantSamples> variants = Symbolize(
      *records, {{0, {"v0.elf", "fuzz/run/bin/v0.elf"}}}, FuzzScratchDir(), "fuzz_kernel");
  for (const VariantSamples& v : variants) {
    // The samples the records hold for this variant, per event name.
    std::map<std::string, uint64_t> expected;
    for (const ProfileRecord& r : *records) {
      if (r.variant_index != v.index) continue;
      for (size_t e = 0; e < r.profile.events.size(); ++e) {
        const std::string& name = r.profile.events[e];
        bool unsupported = false;
        for (const std::string& u : r.profile.unsupported) {
          unsupported = unsupported || u.rfind(name + ": ", 0) == 0;
        }
        if (unsupported) continue;
        uint64_t& sum = expected[name];
        for (const SampleHit& h : r.profile.hits) {
          if (h.event == e) sum += h.count;
        }
      }
    }
    for (const EventSamples& e : v.events) {
      FUZZ_CHECK(expected.count(e.event) && e.samples == expected[e.event]);
      uint64_t by_symbol = 0;
      for (const SymbolCount& s : e.symbols) by_symbol += s.samples;
      FUZZ_CHECK(by_symbol == e.samples);
    }
    if (!v.events.empty()) (void)RenderAnnotated(v, v.events.front().event, "");
  }
  (void)SamplesTables(variants, 10, "fuzz_kernel");
  (void)RenderSamplesJson(variants);
  return 0;
}
