// Fuzzes a host's PushManifest as agentd takes it in (agent/server/push_receiver.cc,
// PushReceiver::OnManifest): the message parsed from bytes, ManifestFromWire, then
// NormalizeManifest, which must refuse every manifest whose files could land outside the bundle
// or collide.
//
// Input: a serialized wire::PushManifest.
//
// Asserts, beyond no crash and no sanitizer report:
// - a manifest NormalizeManifest accepts has a valid kernel name, valid paths strictly in order
//   (so no two files share a path), hex hashes and permission bits only;
// - it goes to the wire and back unchanged, and to its canonical text (what the agent stores)
//   and back unchanged, with the same bundle id.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/hash.h"
#include "common/manifest.h"
#include "protocol/convert.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ktune;
  wire::PushManifest pm;
  if (!pm.ParseFromArray(data, static_cast<int>(size))) return 0;
  Manifest m = ManifestFromWire(pm);
  FUZZ_CHECK(m.files.size() == static_cast<size_t>(pm.files_size()));
  if (!NormalizeManifest(m).ok()) return 0;
  FUZZ_CHECK(ValidateKernelName(m.kernel).ok());
  for (size_t i = 0; i < m.files.size(); ++i) {
    const FileEntry& f = m.files[i];
    FUZZ_CHECK(ValidateBundlePath(f.path).ok());
    FUZZ_CHECK(IsHexDigest(f.hash));
    FUZZ_CHECK((f.mode & ~0777u) == 0);
    if (i > 0) FUZZ_CHECK(m.files[i - 1].path < f.path);
  }
  Manifest from_wire = ManifestFromWire(ManifestToWire(m));
  FUZZ_CHECK(NormalizeManifest(from_wire).ok() && SameManifest(from_wire, m));
  auto from_text = ManifestFromText(ManifestToText(m));
  FUZZ_CHECK(from_text.ok() && SameManifest(*from_text, m));
  FUZZ_CHECK(BundleId(*from_text) == BundleId(m));
  return 0;
}
