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
#include "tests/unit/host/results/samples_fixture.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

using namespace fixture;

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

}  // namespace
}  // namespace ktune::host
