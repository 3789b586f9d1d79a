// Writes the generated seed inputs of the fuzz targets (tests/fuzz/README.md says which seeds
// come from here and which are copies of fixtures): real messages, frames, files and outputs as
// ktune's own writers make them, so the fuzzers start from inputs that get past every parser.
//
//   build-fuzz/fuzz/make_seeds tests/fuzz/corpus
//
// Rewrites corpus/<target>/gen-* and nothing else.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "common/fs.h"
#include "common/hash.h"
#include "common/manifest.h"
#include "common/results.h"
#include "host/results_dir.h"
#include "host/samples.h"
#include "protocol/convert.h"
#include "protocol/frame_codec.h"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;  // "...\0..."s keeps its NULs

std::string g_out;

void Write(const std::string& target, const std::string& name, const std::string& bytes) {
  const std::string dir = g_out + "/" + target;
  fs::create_directories(dir);
  const Status s = WriteFileAtomic(dir + "/gen-" + name, bytes);
  if (!s.ok()) {
    std::fprintf(stderr, "make_seeds: %s\n", s.message().c_str());
    std::exit(1);
  }
}

std::string Frame(const wire::Envelope& msg) {
  return FrameCodec().Encode(msg).value();
}

// A small bundle: a configs.json, one "ELF" (its bytes are never run) and one test data file.
struct Bundle {
  Manifest manifest;
  std::vector<std::string> contents;  // in manifest order
  std::string id;
};

Bundle MakeBundle() {
  Bundle b;
  b.manifest.kernel = "fz";
  const std::vector<std::pair<std::string, std::string>> files = {
      {"fz/run/configs.json", R"({"variants": [{"B": 4, "elf_path": "fz/run/bin/a.elf"}]})"},
      {"fz/run/bin/a.elf",
       "\x7f"
       "ELF not really"},
      {"fz/run/test_data/m.txt", "1 2 3 4\n"}};
  for (const auto& [path, content] : files) {
    b.manifest.files.push_back({path, HashBytes(content), content.size(), 0644});
  }
  if (!NormalizeManifest(b.manifest).ok()) std::abort();
  for (const FileEntry& f : b.manifest.files) {
    for (const auto& [path, content] : files) {
      if (path == f.path) b.contents.push_back(content);
    }
  }
  b.id = BundleId(b.manifest);
  return b;
}

wire::Envelope PushOf(const Bundle& b) {
  wire::Envelope env;
  *env.mutable_push_manifest() = ManifestToWire(b.manifest);
  return env;
}

// The blob of file `i` in chunks of at most `chunk_bytes`.
std::string ChunksOf(const Bundle& b, size_t i, size_t chunk_bytes) {
  std::string out;
  const std::string& content = b.contents[i];
  for (size_t at = 0; at < content.size(); at += chunk_bytes) {
    const std::string raw = content.substr(at, chunk_bytes);
    wire::Envelope env;
    auto* c = env.mutable_blob_chunk();
    c->set_hash(b.manifest.files[i].hash);
    c->set_offset(at);
    c->set_raw_size(raw.size());
    c->set_data(CompressChunk(raw));
    c->set_last(at + chunk_bytes >= content.size());
    out += Frame(env);
  }
  return out;
}

wire::Envelope CommitOf(const Bundle& b) {
  wire::Envelope env;
  env.mutable_push_commit()->set_bundle_id(b.id);
  return env;
}

wire::Envelope RunOf(const Bundle& b, const std::string& run_id) {
  wire::Envelope env;
  auto* r = env.mutable_run_request();
  r->set_run_id(run_id);
  r->set_bundle_id(b.id);
  auto* v = r->add_variants();
  v->set_name("a.elf");
  v->set_elf_path("fz/run/bin/a.elf");
  v->add_args("64x64x64x1");
  auto* p = v->add_params();
  p->set_name("B");
  p->set_value("4");
  r->add_events("task-clock");
  r->add_events("instructions:u");
  r->set_repetitions(2);
  r->set_warmup(1);
  r->set_timeout_ms(1000);
  r->set_cpu(-1);
  return env;
}

wire::Envelope FetchOf(const std::string& run_id, bool resume) {
  wire::Envelope env;
  env.mutable_fetch_run()->set_run_id(run_id);
  env.mutable_fetch_run()->set_resume(resume);
  return env;
}

RepetitionRow Row(uint32_t variant, uint32_t rep, bool valid, Outcome outcome) {
  RepetitionRow row;
  row.run_id = "20260101T000000.000Z-abcdef";
  row.timestamp_ns = 1767225600000000000 + rep;
  row.variant_index = variant;
  row.variant = "matmul_" + std::to_string(variant) + ".elf";
  row.elf = "matmul/run/bin/" + row.variant;
  row.params = {{"BLOCK_SIZE_M", "4"}, {"BLOCK_SIZE_N", std::to_string(8 << variant)}};
  row.repetition = rep;
  row.valid = valid;
  row.outcome = outcome;
  row.values = {{"wall-time", 1234567, "ns", 0, 0, ValueStatus::kOk},
                {"kernel-time", 0.012, "s", 0, 0, ValueStatus::kOk},
                {"task-clock", 1200000.5, "ns", 1200000, 1200000, ValueStatus::kOk},
                {"cycles", 0, "", 0, 0, ValueStatus::kNotSupported},
                {"l2_miss:u", 4096.75, "", 1000, 480, ValueStatus::kScaled},
                {"branches", 0, "", 1000, 0, ValueStatus::kNotCounted},
                {"instructions", 98765, "", 1000, 900, ValueStatus::kPartial}};
  return row;
}

Profile SampleProfileOf() {
  Profile p;
  p.events = {"cycles", "instructions:u"};
  p.unsupported = {"instructions:u: No such file or directory"};
  p.hits = {{0, 0x401000, 12, 120000}, {0, 0x401010, 3, 30000}, {0, 0xffffffff81000000, 1, 10}};
  p.chains = {{0, {0x401000, 0x401200}, 12, 120000}};
  p.mappings = {{0x400000, 0x2000, 0, "/store/bundles/x/tree/fz/run/bin/a.elf"},
                {0x7fff0000, 0x1000, 0, "[vdso]"}};
  p.samples = 16;
  p.lost = 1;
  p.truncated = 2;
  return p;
}

void FrameCodecSeeds() {
  const Bundle b = MakeBundle();
  wire::Envelope hello;
  hello.mutable_hello()->set_protocol_version(kProtocolVersion);
  hello.mutable_hello()->set_client_version("khost 0.1.0");
  const std::string push =
      Frame(hello) + Frame(PushOf(b)) + ChunksOf(b, 0, 16) + Frame(CommitOf(b));
  Write("frame_codec", "push", "\x0e\x01\x23"s + push);
  wire::Envelope row;
  RowToWire(Row(0, 1, true, {}), row.mutable_repetition_result());
  wire::Envelope profile;
  ProfileToWire(SampleProfileOf(), profile.mutable_sample_profile());
  const std::string rows = Frame(RunOf(b, "r1")) + Frame(row) + Frame(profile);
  Write("frame_codec", "run", "\x02\x00\x40"s + rows);
  // Small maximum (bit 0), one byte at a time; the last frame is cut short.
  Write("frame_codec", "torn", "\x01\x07\xff"s + rows.substr(0, rows.size() - 5));
}

void DecompressSeeds() {
  auto announced = [](size_t n) {
    return std::string{static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n)};
  };
  const std::string text = "Running Triton Kernel Time: 0.012 s\nout OK\n";
  Write("decompress_chunk", "text", announced(text.size()) + CompressChunk(text));
  const std::string mib(kBlobChunkBytes, '\0');
  Write("decompress_chunk", "full-chunk", announced(mib.size()) + CompressChunk(mib));
  // A bomb: a frame of the announced size, then another that would decompress past it.
  Write("decompress_chunk", "bomb",
        announced(text.size()) + CompressChunk(text) + CompressChunk(mib));
  Write("decompress_chunk", "over-limit",
        announced(kBlobChunkBytes + 1) + CompressChunk(mib + "x"));
}

void ManifestSeeds() {
  const Bundle b = MakeBundle();
  Write("manifest", "bundle", ManifestToText(b.manifest));
  Write("push_manifest", "bundle", ManifestToWire(b.manifest).SerializeAsString());
}

void ResultsSeeds() {
  std::string text = std::string(kResultsHeader) + "\n";
  text += ToCsvLines(Row(0, 0, true, {OutcomeKind::kExited, 0}));
  text += ToCsvLines(Row(0, 1, false, {OutcomeKind::kExited, 3}));
  RepetitionRow sampled = Row(1, 0, false, {OutcomeKind::kSignaled, 11});
  sampled.sampling = true;
  sampled.pass = 1;
  sampled.variant = "name, with \"quotes\"";
  text += ToCsvLines(sampled);
  text += ToCsvLines(Row(1, 1, false, {OutcomeKind::kTimedOut, 0}));
  text += ToCsvLines(Row(2, 0, false, {OutcomeKind::kLaunchFailed, 0}));
  Write("results_csv", "schema2", text);
  Write("results_csv", "torn", text.substr(0, text.size() - 17));
  Write("results_csv", "schema1",
        "schema,run_id,timestamp_ns,variant_index,variant,elf,params,pass,repetition,valid,"
        "outcome,name,value,unit,enabled_ns,running_ns,status\n"
        "1,r1,1700000000000000000,0,a.elf,k/run/bin/a.elf,B=4,0,0,1,exit:0,wall-time,1234,ns,0,0,"
        "ok\n"
        "1,r1,1700000000000000000,0,a.elf,k/run/bin/a.elf,B=4,0,0,1,exit:0,cycles,,,0,0,"
        "not supported\n");
  Write("csv", "quoted", "2,r1,\"a, b\",\"say \"\"hi\"\"\",\" padded \",,x\n");
  Write("csv", "fields", "plain\0with,comma\0with \"quote\"\0 lead\0"s);
}

void SamplesSeeds() {
  const std::string path = g_out + "/.samples.jsonl";
  fs::remove(path);
  auto w = SamplesWriter::Open(path).value();
  if (!w.Append({0, 1, 0, SampleProfileOf()}).ok()) std::abort();
  Profile none;
  none.events = {"cycles"};
  none.unsupported = {"cycles: Operation not supported"};
  if (!w.Append({1, 1, 0, none}).ok()) std::abort();
  Write("samples_jsonl", "profiles", ReadFile(path).value());
  fs::remove(path);
}

void RunMetaSeeds() {
  RunMeta meta;
  meta.run_id = "20260101T000000.000Z-abcdef";
  meta.kernel = "matmul";
  meta.agent = "127.0.0.1:7178";
  meta.cpu = "SpacemiT X60 (riscv64 0x710-0x8000000058000001-0x1000000049772200)";
  meta.core = "spacemit/x60";
  meta.requested = {"default", "l2"};
  meta.events = {"cycles", "instructions", "l2_miss:u"};
  meta.metrics = {{"ipc", "instructions / cycles", "default"},
                  {"l2 miss rate", "{l2_miss:u} / (kernel_time * 1e9) % 7", "l2"}};
  meta.passes = {{"cycles", "instructions"}, {"l2_miss:u"}};
  meta.plan = "probed";
  meta.complete = true;
  const std::string path = g_out + "/.run.json";
  if (!WriteRunMeta(path, meta).ok()) std::abort();
  Write("run_meta", "run", ReadFile(path).value());
  fs::remove(path);
}

void NumberSeeds() {
  for (const char* n : {"0.012", "5e-05", "-0", "123456789012345678", "1.7976931348623157e308",
                        "4.9e-324", "2.2250738585072014e-308", "-nan", "inf", "0x1p3", "1e400"}) {
    Write("numbers", n, n);
  }
}

void KernelOutputSeeds() {
  Write("kernel_output", "triton",
        "\x03"
        "Launching kernel\nRunning Triton Kernel Time: 0.012 s\nout OK\n");
  Write("kernel_output", "average", "\x00Running Triton Kernel Average Time: 5e-05 s\r\n"s);
  Write("kernel_output", "units",
        "\x0fRunning C Kernel Time: 500 us\nRunning C Kernel Time: 1 ms\nout NOT OK\n");
}

void AgentSessionSeeds() {
  const Bundle b = MakeBundle();
  std::string push = Frame(PushOf(b));
  for (size_t i = 0; i < b.contents.size(); ++i) push += ChunksOf(b, i, 8);
  push += Frame(CommitOf(b));
  Write("agent_session", "push", push);
  Write("agent_session", "push-run", push + Frame(RunOf(b, "r1")));
  Write("agent_session", "push-run-fetch",
        push + Frame(RunOf(b, "r2")) + Frame(FetchOf("r2", false)));
  Write("agent_session", "fetch-missing", Frame(FetchOf("r3", true)));
  wire::Envelope stray;
  stray.mutable_run_done()->set_run_id("r1");
  Write("agent_session", "unexpected", Frame(PushOf(b)) + Frame(stray));
}

}  // namespace
}  // namespace ktune

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seeds CORPUS_DIR\n");
    return 2;
  }
  ktune::g_out = argv[1];
  ktune::FrameCodecSeeds();
  ktune::DecompressSeeds();
  ktune::ManifestSeeds();
  ktune::ResultsSeeds();
  ktune::SamplesSeeds();
  ktune::RunMetaSeeds();
  ktune::NumberSeeds();
  ktune::KernelOutputSeeds();
  ktune::AgentSessionSeeds();
  return 0;
}
