// The ELF reader, the samples file and the attribution of samples to symbols, on the test ELFs
// (read as files, never run) and on malformed input.
#include <doctest/doctest.h>
#include <elf.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "common/fs.h"
#include "host/report/report.h"
#include "host/report/samples_report.h"
#include "host/results/samples.h"
#include "host/util/elf_symbols.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

std::string Bytes(const std::string& elf) {
  return ReadFile(KTUNE_ELVES_DIR "/" + elf).value();
}

// The executable PT_LOAD of an ELF, read here with <elf.h> independently of ElfImage.
Elf64_Phdr ExecutableSegment(const std::string& bytes) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, bytes.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) return ph;
  }
  FAIL("no executable segment");
  return {};
}

TEST_CASE("a static executable's functions and addresses") {
  auto img = ElfImage::Parse(Bytes("spin.elf"));
  REQUIRE(img.ok());
  CHECK_FALSE(img->position_independent());
  const ElfSymbol* k = img->Find("spin_kernel");
  REQUIRE(k != nullptr);
  CHECK(k->size > 0);
  CHECK(img->SymbolAt(k->addr)->name == "spin_kernel");
  CHECK(img->SymbolAt(k->addr + k->size - 1)->name == "spin_kernel");
  CHECK(img->AddressOf(k->addr + 4, {}) == k->addr + 4);  // IPs are addresses
  CHECK_FALSE(img->AddressOf(0x10, {}).has_value());      // not in an executable segment
  CHECK_FALSE(img->AddressOf(0xffffffff81000000ull, {}).has_value());
  CHECK(img->SymbolAt(0) == nullptr);
}

TEST_CASE("a position-independent executable needs the process's mapping of it") {
  const std::string bytes = Bytes("spin_pie.elf");
  auto img = ElfImage::Parse(bytes);
  REQUIRE(img.ok());
  CHECK(img->position_independent());
  const ElfSymbol* k = img->Find("spin_kernel");
  REQUIRE(k != nullptr);
  const Elf64_Phdr text = ExecutableSegment(bytes);
  const uint64_t base = 0x7f1234560000ull, page = 4096;
  const Mapping m{base + (text.p_vaddr & ~(page - 1)), text.p_memsz + (text.p_vaddr % page),
                  text.p_offset & ~(page - 1), "/store/tree/k/run/bin/spin_pie.elf"};
  CHECK(img->AddressOf(base + k->addr + 8, {m}) == k->addr + 8);
  CHECK_FALSE(img->AddressOf(base + k->addr + 8, {}).has_value());  // no mapping, no place
  CHECK_FALSE(img->AddressOf(k->addr + 8, {m}).has_value());
}

TEST_CASE("malformed ELF bytes are errors, never crashes") {
  const std::string real = Bytes("spin.elf");
  CHECK_FALSE(ElfImage::Parse("").ok());
  CHECK_FALSE(ElfImage::Parse("\x7f"
                              "ELF")
                  .ok());
  CHECK_FALSE(ElfImage::Parse(std::string(4096, 'x')).ok());
  std::string elf32 = real;
  elf32[EI_CLASS] = ELFCLASS32;
  CHECK(ElfImage::Parse(elf32).status().code() == ErrorCode::kUnsupported);
  for (size_t cut : {size_t{63}, size_t{64}, size_t{200}, real.size() / 2, real.size() - 1}) {
    auto r = ElfImage::Parse(real.substr(0, cut));  // truncated anywhere: an error or fewer symbols
    if (r.ok()) CHECK(r->symbols().size() <= ElfImage::Parse(real)->symbols().size());
  }
  std::string bad_offsets = real;
  Elf64_Ehdr eh;
  std::memcpy(&eh, bad_offsets.data(), sizeof eh);
  eh.e_shoff = ~0ull - 10;
  std::memcpy(bad_offsets.data(), &eh, sizeof eh);
  CHECK_FALSE(ElfImage::Parse(bad_offsets).ok());
}

ProfileRecord Record(uint64_t kernel_ip) {
  ProfileRecord r;
  r.variant_index = 0;
  r.pass = 1;
  r.profile.events = {"cpu-clock:u", "cycles"};
  r.profile.unsupported = {"cycles: No such file or directory"};
  r.profile.hits = {
      {0, kernel_ip, 3, 300}, {0, 0xffffffff81000000ull, 1, 100}, {7, kernel_ip, 9, 9}};
  r.profile.chains = {{0, {kernel_ip, kernel_ip + 1}, 2, 200}};
  r.profile.mappings = {{0x401000, 0x1000, 0x1000, "/x/k/run/bin/spin.elf"}};
  r.profile.samples = 4;
  r.profile.lost = 2;
  return r;
}

TEST_CASE("the samples file round-trips; a torn last line is ignored") {
  const std::string dir = std::filesystem::temp_directory_path() / "ktune-samples-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = SamplesPath(dir + "/run.csv");
  CHECK(path == dir + "/run.samples.jsonl");
  {
    auto w = SamplesWriter::Open(path);
    REQUIRE(w.ok());
    REQUIRE(w->Append(Record(0x401234)).ok());
    REQUIRE(w->Finish().ok());
  }
  auto back = ReadSamples(path);
  REQUIRE(back.ok());
  REQUIRE(back->size() == 1);
  const Profile& p = (*back)[0].profile;
  CHECK((*back)[0].pass == 1);
  CHECK(p.events == Record(0).profile.events);
  CHECK(p.hits.size() == 3);
  CHECK(p.hits[0].period == 300);
  CHECK(p.chains[0].ips == std::vector<uint64_t>{0x401234, 0x401235});
  CHECK(p.mappings[0].file == "/x/k/run/bin/spin.elf");
  CHECK(p.lost == 2);
  std::string text = ReadFile(path).value();
  REQUIRE(WriteFileAtomic(path, text + text.substr(0, 30)).ok());
  CHECK(ReadSamples(path)->size() == 1);
  REQUIRE(WriteFileAtomic(path, text + "{\"variant_index\": 1}\n").ok());
  CHECK(ReadSamples(path).status().message().find("line 2") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a resumed samples file loses its torn line and takes each repetition once") {
  const test::UnitTempDir tmp("ktune-samples");
  const std::string dir = tmp.path().string();
  const std::string path = dir + "/run.samples.jsonl";
  ProfileRecord first = Record(0x401234);
  first.repetition = 0;
  {
    auto w = SamplesWriter::Open(path);
    REQUIRE(w.ok());
    REQUIRE(w->Append(first).ok());
    REQUIRE(w->Finish().ok());
  }
  const std::string whole = ReadFile(path).value();
  REQUIRE(WriteFileAtomic(path, whole + whole.substr(0, 25)).ok());  // khost died mid-record
  {
    auto w = SamplesWriter::Open(path);
    REQUIRE(w.ok());
    CHECK(ReadFile(path).value() == whole);  // the torn line is cut before anything is appended
    ProfileRecord again = first;
    again.profile.lost = 99;
    REQUIRE(w->Append(again).ok());  // that repetition's profile is in the file: skipped
    ProfileRecord next = Record(0x401240);
    next.repetition = 1;
    REQUIRE(w->Append(next).ok());
    REQUIRE(w->Finish().ok());
  }
  const std::string text = ReadFile(path).value();
  CHECK(text.starts_with(whole));
  CHECK(std::count(text.begin(), text.end(), '\n') == 2);
  auto back = ParseSamples(text, path);
  REQUIRE(back.ok());
  REQUIRE(back->size() == 2);
  CHECK((*back)[0].repetition == 0);
  CHECK((*back)[0].profile.lost == 2);
  CHECK((*back)[1].repetition == 1);
  CHECK((*back)[1].profile.hits[0].ip == 0x401240);
}

TEST_CASE("samples text: records, blank lines skipped, a torn end ignored, errors name the line") {
  const std::string line =
      R"({"variant_index":2,"pass":1,"repetition":3,"events":["cycles"],"unsupported":[],)"
      R"("samples":5,"lost":1,"hits":[[0,4096,5,500]],"chains":[[0,2,200,[4096,4100]]],)"
      R"("mappings":[[4096,8192,0,"/k/run/bin/a.elf"]]})";
  auto r = ParseSamples(line + "\n\n" + line + "\n" + line.substr(0, 30), "s.jsonl");
  REQUIRE(r.ok());
  REQUIRE(r->size() == 2);
  const ProfileRecord& p = (*r)[0];
  CHECK(p.variant_index == 2);
  CHECK(p.pass == 1);
  CHECK(p.repetition == 3);
  CHECK(p.profile.events == std::vector<std::string>{"cycles"});
  CHECK(p.profile.samples == 5);
  CHECK(p.profile.lost == 1);
  CHECK(p.profile.truncated == 0);  // absent from older files
  REQUIRE(p.profile.hits.size() == 1);
  CHECK(p.profile.hits[0].ip == 4096);
  CHECK(p.profile.hits[0].count == 5);
  CHECK(p.profile.hits[0].period == 500);
  REQUIRE(p.profile.chains.size() == 1);
  CHECK(p.profile.chains[0].ips == std::vector<uint64_t>{4096, 4100});
  CHECK(p.profile.chains[0].count == 2);
  CHECK(p.profile.chains[0].period == 200);
  REQUIRE(p.profile.mappings.size() == 1);
  CHECK(p.profile.mappings[0].len == 8192);
  CHECK(p.profile.mappings[0].file == "/k/run/bin/a.elf");
  CHECK(ParseSamples("", "s.jsonl")->empty());
  CHECK(ParseSamples(line.substr(0, 10), "s.jsonl")->empty());
  const std::string missing =
      ParseSamples(line + "\n{\"pass\": 1}\n", "s.jsonl").status().message();
  CHECK(missing.find("s.jsonl line 2") != std::string::npos);
  CHECK(ParseSamples("not json\n", "s.jsonl").status().code() == ErrorCode::kInvalidArgument);
}

// Found by tests/fuzz/samples_jsonl: a number out of a field's range was converted with a cast
// whose result is undefined (a float) or cut short (a larger integer).
TEST_CASE("numbers in a samples file must fit their fields") {
  const std::string good =
      R"({"variant_index":0,"pass":1,"repetition":2,"events":["cycles"],"unsupported":[],)"
      R"("samples":1,"lost":0,"hits":[[0,4096,1,100]],"chains":[[0,1,100,[4096]]],)"
      R"("mappings":[[4096,8192,0,"a.elf"]]})";
  REQUIRE(ParseSamples(good + "\n", "s.jsonl").ok());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string line = good;
    REQUIRE(line.find(from) != std::string::npos);
    return line.replace(line.find(from), from.size(), to) + "\n";
  };
  for (const std::string& bad :
       {with("\"pass\":1", "\"pass\":1e300"), with("\"pass\":1", "\"pass\":4294967296"),
        with("\"pass\":1", "\"pass\":-1"),
        with("\"samples\":1", "\"samples\":18446744073709551616"),
        with("[[0,4096,1,100]]", "[[0,4096,1.5,100]]"), with("[4096]]]", "[1e30]]]"),
        with("[4096]]]", "4096]]"), with("\"lost\":0", "\"lost\":0,\"truncated\":-5")}) {
    auto parsed = ParseSamples(bad, "s.jsonl");
    CHECK_FALSE(parsed.ok());
    CHECK(parsed.status().message().find("s.jsonl line 1") != std::string::npos);
  }
}

TEST_CASE("samples are attributed to functions; events that could not sample are not counted") {
  const ElfSymbol k = *ElfImage::Parse(Bytes("spin.elf"))->Find("spin_kernel");
  const auto out = Symbolize({Record(k.addr + 2)}, {{0, {"spin.elf", "spin.elf"}}}, KTUNE_ELVES_DIR,
                             "spin_kernel");
  REQUIRE(out.size() == 1);
  const VariantSamples& v = out[0];
  CHECK(v.lost == 2);
  CHECK(v.unsupported == std::vector<std::string>{"cycles: No such file or directory"});
  REQUIRE(v.events.size() == 1);  // cycles could not sample: no zero-sample entry
  const EventSamples& e = v.events[0];
  CHECK(e.samples == 4);
  CHECK(e.period == 400);
  REQUIRE(e.symbols.size() == 2);
  CHECK(e.symbols[0].symbol == "spin_kernel");
  CHECK(e.symbols[0].period == 300);
  CHECK(e.symbols[1].symbol == "[kernel]");
  CHECK(*e.kernel_period == 300);
  REQUIRE(e.instructions.size() == 1);
  CHECK(e.instructions[0].addr == k.addr + 2);

  const auto missing =
      Symbolize({Record(k.addr)}, {{0, {"gone.elf", "gone.elf"}}}, KTUNE_ELVES_DIR, "spin_kernel");
  CHECK(missing[0].problem.find("gone.elf") != std::string::npos);
  CHECK_FALSE(missing[0].events[0].kernel_period.has_value());
}

TEST_CASE("the disassembly is annotated with each instruction's share") {
  const ElfSymbol k = *ElfImage::Parse(Bytes("spin.elf"))->Find("spin_kernel");
  const auto v = Symbolize({Record(k.addr + 2)}, {{0, {"spin.elf", "spin.elf"}}}, KTUNE_ELVES_DIR,
                           "spin_kernel")[0];
  char addr[32], header[64];
  std::snprintf(addr, sizeof addr, "%llx", static_cast<unsigned long long>(k.addr + 2));
  std::snprintf(header, sizeof header,
                "%016llx <spin_kernel>:", static_cast<unsigned long long>(k.addr));
  const std::string disassembly = std::string(header) + "\n  " + addr +
                                  ":\t48 01 c2\tadd %rax,%rdx\n\n0000000000401000 <other>:\n"
                                  "  401000:\tc3\tret\n";
  const std::string out = RenderAnnotated(v, "cpu-clock:u", disassembly);
  CHECK(out.find("<spin_kernel>:") != std::string::npos);
  CHECK(out.find(" 75.0% |   " + std::string(addr)) != std::string::npos);
  CHECK(out.find("<other>") == std::string::npos);  // not sampled, not shown
  CHECK(RenderAnnotated(v, "cycles", disassembly).find("no samples of cycles") !=
        std::string::npos);
  CHECK(RenderAnnotated(v, "cpu-clock:u", "").find(std::string(addr) + "  spin_kernel") !=
        std::string::npos);
}

TEST_CASE("the kernel symbol's period becomes the seed's perf-stats column") {
  const ElfSymbol k = *ElfImage::Parse(Bytes("spin.elf"))->Find("spin_kernel");
  const auto samples =
      Symbolize({Record(k.addr)}, {{0, {"spin.elf", "spin.elf"}}}, KTUNE_ELVES_DIR, "spin_kernel");
  const SampledColumns cols = KernelPeriodColumns(samples, "spin_kernel");
  CHECK(cols.names == std::vector<std::string>{"cpu-clock:u (spin_kernel period)"});
  RepetitionRow row;
  row.run_id = "r";
  row.variant = "spin.elf";
  row.valid = true;
  row.values = {{kWallTime, 1e6, "ns", 0, 0, ValueStatus::kOk}};
  const std::string csv = RenderPerfStats(BuildReport({row}), cols);
  CHECK(csv.find(",cpu-clock:u (spin_kernel period)\n") != std::string::npos);
  CHECK(csv.substr(csv.size() - 5) == ",300\n");
  CHECK(NotSupported("cycles: No such file or directory") ==
        "cycles: not supported (No such file or directory)");
}

}  // namespace
}  // namespace ktune::host
