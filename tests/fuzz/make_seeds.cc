// Writes the generated seed inputs of the fuzz targets (tests/fuzz/README.md says which seeds
// come from here and which are copies of fixtures): real messages, frames, files and outputs as
// ktune's own writers make them, so the fuzzers start from inputs that get past every parser.
//
//   build-fuzz/fuzz/make_seeds tests/fuzz/corpus
//
// Rewrites corpus/<target>/gen-* and nothing else.
#include <elf.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "common/fs.h"
#include "common/hash.h"
#include "common/manifest.h"
#include "common/results.h"
#include "host/corpus/corpus.h"
#include "host/results/results_dir.h"
#include "host/results/samples.h"
#include "host/search/search_files.h"
#include "protocol/convert.h"
#include "protocol/frame_codec.h"
#include "tests/fuzz/fuzz_util.h"

namespace ktune::host {
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
  row.board = "riscv64:0x710-0x8000000058000001-0x0:Spacemit(R) X60";
  row.timestamp_ns = 1767225600000000000 + rep;
  row.variant_index = variant;
  row.variant = "matmul_" + std::to_string(variant) + ".elf";
  row.elf = "matmul/run/bin/" + row.variant;
  row.elf_hash = std::string(32, 'a' + static_cast<char>(variant));
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
  auto announced = [](size_t n, uint8_t base_kib = 0) {
    return std::string{static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n),
                       static_cast<char>(base_kib)};
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
  // Deltas: the base with an edit, against all of it (255 KiB) and against a part of it.
  for (uint8_t kib : {uint8_t{255}, uint8_t{16}}) {
    const std::string base = DeltaFuzzBase(kib);
    std::string edited = base;
    edited.replace(edited.size() / 2, 4, "edit");
    Write("decompress_chunk", "delta-" + std::to_string(kib) + "k",
          announced(edited.size(), kib) + CompressChunk(edited, base));
  }
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
  Write("results_csv", "schema4", text);
  Write("results_csv", "torn", text.substr(0, text.size() - 17));
  Write("results_csv", "schema2",
        "schema,run_id,timestamp_ns,variant_index,variant,elf,params,pass,sampling,repetition,"
        "valid,outcome,name,value,unit,enabled_ns,running_ns,status\n"
        "2,r1,1700000000000000000,0,a.elf,k/run/bin/a.elf,B=4,0,0,0,1,exit:0,wall-time,1234,ns,0,"
        "0,ok\n");
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

// A run as `khost db import` finds it: the results and metadata seeds above, joined by a NUL; and
// the results alone (a run whose metadata is lost).
void DbImportSeeds() {
  const std::string results = ReadFile(g_out + "/results_csv/gen-schema4").value();
  Write("db_import", "run", results + '\0' + ReadFile(g_out + "/run_meta/gen-run").value());
  Write("db_import", "no-meta", results);
}

// A sweep as khost run --resume finds it, for sweep_resume: the metadata (agents k1 and k2, three
// shards: done, measuring, pending), a NUL, the results file (rows of the first two shards), a
// NUL, the whole request (five variants, two repetitions); and one whose first shard was all
// reused, so left out (ids from r_1), the second shard moved and its rest pending.
void SweepResumeSeeds() {
  const std::string run_id = "20260101T000000.000Z-abcdef";
  wire::RunRequest request;
  request.set_run_id(run_id);
  request.set_bundle_id(std::string(64, 'b'));
  request.set_repetitions(2);
  for (int v = 0; v < 5; ++v) {
    auto* variant = request.add_variants();
    variant->set_name("matmul_" + std::to_string(v) + ".elf");
    variant->set_elf_path("matmul/run/bin/" + variant->name());
  }
  const auto seed = [&](const std::string& name, std::vector<RunMeta::Shard> shards,
                        const std::vector<std::pair<std::string, uint32_t>>& rows) {
    RunMeta meta;
    meta.run_id = run_id;
    meta.kernel = "matmul";
    meta.agent = "k1, k2";
    meta.events = {"task-clock"};
    meta.passes = {{"task-clock"}};
    meta.plan = "probed";
    meta.complete = false;
    meta.agents = {"k1", "k2"};
    meta.shards = std::move(shards);
    const std::string path = g_out + "/.sweep.json";
    if (!WriteRunMeta(path, meta).ok()) std::abort();
    std::string csv = std::string(kResultsHeader) + "\n";
    for (const auto& [shard, variant] : rows) {
      for (uint32_t rep = 0; rep < 2; ++rep) {
        RepetitionRow row = Row(variant, rep, true, {OutcomeKind::kExited, 0});
        row.run_id = shard;
        csv += ToCsvLines(row);
      }
    }
    Write("sweep_resume", name,
          ReadFile(path).value() + '\0' + csv + '\0' + request.SerializeAsString());
    fs::remove(path);
  };
  seed("sweep",
       {{run_id + "_0", {0, 1}, "k1", "done"},
        {run_id + "_1", {2, 3}, "k2", "measuring"},
        {run_id + "_2", {4}, "", "pending"}},
       {{run_id + "_0", 0}, {run_id + "_0", 1}, {run_id + "_1", 2}});
  seed("reused-first",
       {{run_id + "_1", {2, 3}, "k2", "moved"}, {run_id + "_2", {3}, "", "pending"}},
       {{run_id + "_1", 2}});
}

// A search's metadata as khost tune --strategy writes it: its command line, a batch being
// measured, a warm start of which one configuration was measured here; and one whose warm
// start has no configurations, only why.
void SearchMetaSeeds() {
  const std::string search = g_out + "/.search.csv", json = g_out + "/.search.json";
  SearchMeta meta{{"khost", "tune", "matmul", "--strategy", "bayes"},
                  12.5,
                  SearchMeta::Batch{"20260101T000000.000Z-abcdef", {{32, 64}, {16, 8}}}};
  meta.warm_start = {{64, 64}, {32, 32}};
  meta.warm_about = "2 configurations from an earlier run";
  meta.warm_here = 1;
  if (!WriteSearchMeta(search, meta).ok()) std::abort();
  Write("search_meta", "pending", ReadFile(json).value());
  meta.pending.reset();
  meta.warm_start = {};
  meta.warm_about = "none: no earlier run of this kernel";
  meta.warm_here = 0;
  if (!WriteSearchMeta(search, meta).ok()) std::abort();
  Write("search_meta", "no-warm-start", ReadFile(json).value());
  fs::remove(json);
}

// A sampled corpus's index.json: two kernels from one model, one of them a reduction.
void CorpusIndexSeeds() {
  CorpusIndex index;
  index.sampled_with = "n=2 long_portion=0.5 long_pool=10 seed=1";
  index.kernels = {{"triton_poi_fused_add_0", "mlp_small", "mlp_small/output_code.py", 12, 40, 29,
                    "pointwise", std::string(64, 'a'), "kernels/triton_poi_fused_add_0.py"},
                   {"triton_red_fused_sum_1", "mlp_small", "mlp_small/output_code.py", 44, 90, 47,
                    "reduction", std::string(64, 'b'), "kernels/triton_red_fused_sum_1.py"}};
  Write("corpus_index", "sampled", CorpusIndexJson(index));
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

// Appends the bytes of `value` to `out`.
template <typename T>
void Put(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// A minimal ELF64 executable as a linker lays one out: the ELF header, one executable PT_LOAD
// covering the file, 32 bytes of code, a symbol table (two functions, a data symbol, an
// undefined function) with its string table, and the section headers. `pie`: ET_DYN at 0.
std::string TinyElf(bool pie) {
  const std::string strtab = "\0fz_kernel\0main\0table\0printf\0"s;
  const uint64_t base = pie ? 0 : 0x400000;
  const uint64_t text_off = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);
  const uint64_t text_size = 32;
  const uint64_t symtab_off = text_off + text_size;
  const uint64_t symtab_size = 5 * sizeof(Elf64_Sym);
  const uint64_t strtab_off = symtab_off + symtab_size;
  const uint64_t shoff = strtab_off + strtab.size();
  const uint64_t file_size = shoff + 4 * sizeof(Elf64_Shdr);

  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = pie ? ET_DYN : ET_EXEC;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_entry = base + text_off + 16;
  eh.e_phoff = sizeof(Elf64_Ehdr);
  eh.e_shoff = shoff;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = 1;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 4;
  Elf64_Phdr ph{};
  ph.p_type = PT_LOAD;
  ph.p_flags = PF_R | PF_X;
  ph.p_vaddr = ph.p_paddr = base;
  ph.p_filesz = ph.p_memsz = file_size;
  ph.p_align = 0x1000;

  std::string out;
  Put(out, eh);
  Put(out, ph);
  out.append(text_size, '\x90');  // nop
  auto sym = [&](uint32_t name, unsigned type, uint16_t shndx, uint64_t value, uint64_t size) {
    Elf64_Sym s{};
    s.st_name = name;
    s.st_info = ELF64_ST_INFO(STB_GLOBAL, type);
    s.st_shndx = shndx;
    s.st_value = value;
    s.st_size = size;
    Put(out, s);
  };
  sym(0, STT_NOTYPE, SHN_UNDEF, 0, 0);
  sym(1, STT_FUNC, 1, base + text_off, 16);         // fz_kernel
  sym(11, STT_FUNC, 1, base + text_off + 16, 0);    // main, no size
  sym(16, STT_OBJECT, 1, base + text_off + 24, 8);  // table
  sym(22, STT_FUNC, SHN_UNDEF, 0, 0);               // printf
  out += strtab;
  auto section = [&](uint32_t type, uint64_t offset, uint64_t size, uint32_t link,
                     uint64_t entsize) {
    Elf64_Shdr sh{};
    sh.sh_type = type;
    sh.sh_addr = type == SHT_PROGBITS ? base + offset : 0;
    sh.sh_offset = offset;
    sh.sh_size = size;
    sh.sh_link = link;
    sh.sh_entsize = entsize;
    Put(out, sh);
  };
  section(SHT_NULL, 0, 0, 0, 0);
  section(SHT_PROGBITS, text_off, text_size, 0, 0);
  section(SHT_SYMTAB, symtab_off, symtab_size, 3, sizeof(Elf64_Sym));
  section(SHT_STRTAB, strtab_off, strtab.size(), 0, 0);
  return out;
}

void ElfSeeds() {
  Write("elf_symbols", "tiny-exec", TinyElf(false));
  Write("elf_symbols", "tiny-pie", TinyElf(true));
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

// What an agent sends for run "r1" of host_receive.cc's request (variants a.elf and b.elf,
// 2 repetitions, cycles recorded), after its HelloReply.
void HostReceiveSeeds() {
  wire::Envelope accepted;
  auto* a = accepted.mutable_run_accepted();
  a->set_run_id("r1");
  a->add_passes()->add_events("cycles");
  a->set_counter_budget(4);
  a->set_plan("probed");
  std::string rows;
  uint32_t count = 0;
  for (uint32_t variant = 0; variant < 2; ++variant) {
    for (uint32_t rep = 0; rep < 3; ++rep) {
      RepetitionRow row = Row(variant, rep == 2 ? 0 : rep, rep != 1, {});
      row.run_id = "r1";
      row.sampling = rep == 2;
      row.pass = rep == 2 ? 1 : 0;
      wire::Envelope env;
      RowToWire(row, env.mutable_repetition_result());
      rows += Frame(env);
      ++count;
      if (row.sampling) {
        wire::Envelope profile;
        auto* p = profile.mutable_sample_profile();
        p->set_run_id("r1");
        p->set_variant_index(variant);
        p->set_pass(1);
        ProfileToWire(SampleProfileOf(), p);
        rows += Frame(profile);
      }
    }
  }
  wire::Envelope done;
  done.mutable_run_done()->set_run_id("r1");
  done.mutable_run_done()->set_rows(count);
  done.mutable_run_done()->set_complete(true);
  wire::Envelope queued;
  queued.mutable_run_queued()->set_run_id("r1");
  queued.mutable_run_queued()->set_position(1);
  Write("host_receive", "run", "\x00"s + Frame(queued) + Frame(accepted) + rows + Frame(done));

  // A fetch: the plan carries the request; the journal held the rows.
  wire::RunRequest request;
  request.set_run_id("r1");
  for (const char* name : {"a.elf", "b.elf"}) {
    auto* v = request.add_variants();
    v->set_name(name);
    v->set_elf_path(std::string("k/run/bin/") + name);
  }
  request.add_events("cycles");
  request.add_record("cycles");
  request.set_repetitions(2);
  *a->mutable_request() = request;
  a->set_rows_stored(count);
  Write("host_receive", "fetch", "\x01"s + Frame(accepted) + rows + Frame(done));
  wire::Envelope error = ErrorMessage(NotFound("no run r1 on this agent"));
  Write("host_receive", "error", "\x01"s + Frame(error));
}

}  // namespace
}  // namespace ktune::host

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seeds CORPUS_DIR\n");
    return 2;
  }
  ktune::host::g_out = argv[1];
  ktune::host::FrameCodecSeeds();
  ktune::host::DecompressSeeds();
  ktune::host::ManifestSeeds();
  ktune::host::ResultsSeeds();
  ktune::host::SamplesSeeds();
  ktune::host::RunMetaSeeds();
  ktune::host::DbImportSeeds();
  ktune::host::SweepResumeSeeds();
  ktune::host::SearchMetaSeeds();
  ktune::host::CorpusIndexSeeds();
  ktune::host::NumberSeeds();
  ktune::host::KernelOutputSeeds();
  ktune::host::ElfSeeds();
  ktune::host::HostReceiveSeeds();
  ktune::host::AgentSessionSeeds();
  return 0;
}
