#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "common/fs.h"
#include "common/results.h"
#include "common/strings.h"
#include "tests/unit/temp_dir.h"

namespace ktune {
namespace {

RepetitionRow SampleRow(uint32_t variant, uint32_t rep) {
  RepetitionRow r;
  r.run_id = "20261122T000000Z-abcdef";
  r.board = "riscv64:0x710-0x8000000058000001-0x0:Spacemit(R) X60";
  r.timestamp_ns = 1795000000000000000 + rep;
  r.variant_index = variant;
  r.variant = "VL256_matmul_4_16_8_g_static_O2.elf";
  r.elf = "matmul/run/bin/VL256_matmul_4_16_8_g_static_O2.elf";
  r.elf_hash = "5d41402abc4b2a76b9719d911017c592";
  r.params = {{"BLOCK_SIZE_M", "4"}, {"BLOCK_SIZE_N", "16"}};
  r.repetition = rep;
  r.valid = true;
  r.outcome = {OutcomeKind::kExited, 0};
  r.values = {{kWallTime, 1234567, "ns", 0, 0, ValueStatus::kOk},
              {kKernelTime, 5e-05, "s", 0, 0, ValueStatus::kOk},
              {"cycles", 0, "", 0, 0, ValueStatus::kNotSupported},
              {"l2_miss:u", 0, "", 100, 0, ValueStatus::kNotCounted},
              {"weird,name", 42, "", 100, 100, ValueStatus::kOk}};
  return r;
}

TEST_CASE("result rows survive the CSV round trip exactly") {
  const RepetitionRow a = SampleRow(0, 0), b = SampleRow(0, 1), c = SampleRow(3, 0);
  const std::string text =
      std::string(kResultsHeader) + "\n" + ToCsvLines(a) + ToCsvLines(b) + ToCsvLines(c);
  auto file = ParseResultsCsv(text);
  REQUIRE(file.ok());
  CHECK(file->torn_lines == 0);
  REQUIRE(file->rows.size() == 3);
  const RepetitionRow& r = file->rows[0];
  CHECK(r.run_id == a.run_id);
  CHECK(r.board == a.board);
  CHECK(r.elf_hash == a.elf_hash);
  CHECK(r.timestamp_ns == a.timestamp_ns);
  CHECK(r.params == a.params);
  CHECK(r.outcome.ToString() == "exit:0");
  REQUIRE(r.values.size() == 5);
  CHECK(r.values[1].value == 5e-05);
  CHECK(r.values[2].status == ValueStatus::kNotSupported);
  CHECK(r.values[3].status == ValueStatus::kNotCounted);
  CHECK(r.values[3].enabled_ns == 100);
  CHECK(r.values[4].name == "weird,name");
  CHECK(file->rows[2].variant_index == 3);
}

TEST_CASE("every line carries the schema version; the header is fixed") {
  const std::string lines = ToCsvLines(SampleRow(0, 0));
  CHECK(lines.rfind("4,", 0) == 0);
  CHECK(std::string(kResultsHeader).rfind("schema,run_id,", 0) == 0);
  CHECK(std::count(lines.begin(), lines.end(), '\n') == 5);
}

TEST_CASE("a torn last line is dropped and counted, never parsed") {
  std::string text = std::string(kResultsHeader) + "\n" + ToCsvLines(SampleRow(0, 0));
  text += ToCsvLines(SampleRow(0, 1)).substr(0, 40);
  auto file = ParseResultsCsv(text);
  REQUIRE(file.ok());
  CHECK(file->torn_lines == 1);
  CHECK(file->rows.size() == 1);
}

TEST_CASE("malformed results are errors naming the line") {
  CHECK_FALSE(ParseResultsCsv("").ok());
  CHECK(ParseResultsCsv("a,b\n").status().message().find("line 1") != std::string::npos);
  std::string text = std::string(kResultsHeader) + "\n" + ToCsvLines(SampleRow(0, 0));
  std::string bad = text + "1,x,y\n";
  CHECK(ParseResultsCsv(bad).status().message().find("line 7") != std::string::npos);
  std::string bad_status = text;
  bad_status.replace(bad_status.rfind(",ok\n"), 4, ",great\n");
  CHECK_FALSE(ParseResultsCsv(bad_status).ok());
}

TEST_CASE("a repetition's later lines read their value only; its key written otherwise joins it") {
  const RepetitionRow a = SampleRow(0, 0);
  const std::string lines = ToCsvLines(a);
  std::vector<std::string> line;
  for (std::string_view l : Split(lines, '\n')) {
    if (!l.empty()) line.emplace_back(l);
  }
  REQUIRE(line.size() == 5);
  // The third line's run id quoted: other bytes, the same key.
  line[2].replace(line[2].find(a.run_id), a.run_id.size(), "\"" + a.run_id + "\"");
  std::string text = std::string(kResultsHeader) + "\n";
  for (const std::string& l : line) text += l + "\n";
  auto file = ParseResultsCsv(text);
  REQUIRE(file.ok());
  REQUIRE(file->rows.size() == 1);
  REQUIRE(file->rows[0].values.size() == 5);
  for (size_t i = 0; i < 5; ++i) CHECK(file->rows[0].values[i].name == a.values[i].name);
  CHECK(file->rows[0].values[4].value == 42);

  // A later line with the same key and a bad value, or a field too many, is an error of its line.
  std::string bad_value = text;
  bad_value.replace(bad_value.rfind(",ok\n"), 4, ",great\n");
  CHECK(ParseResultsCsv(bad_value).status().message().find("line 6") != std::string::npos);
  std::string extra = text;
  extra.insert(extra.rfind(",ok\n"), ",1");
  const std::string message = ParseResultsCsv(extra).status().message();
  CHECK(message.find("line 6") != std::string::npos);
  CHECK(message.find("columns") != std::string::npos);
}

TEST_CASE("schema 1 and 2 files still read; the sampling flag and partial counts round-trip") {
  RepetitionRow r = SampleRow(0, 0);
  r.sampling = true;
  r.values.push_back({"instructions", 700, "", 1000, 600, ValueStatus::kPartial});
  auto back = ParseResultsCsv(std::string(kResultsHeader) + "\n" + ToCsvLines(r));
  REQUIRE(back.ok());
  CHECK(back->rows[0].sampling);
  CHECK(back->rows[0].values.back().status == ValueStatus::kPartial);
  CHECK(back->rows[0].values.back().value == 700);
  const std::string v1 =
      "schema,run_id,timestamp_ns,variant_index,variant,elf,params,pass,repetition,valid,outcome,"
      "name,value,unit,enabled_ns,running_ns,status\n"
      "1,r,5,0,a.elf,k/run/bin/a.elf,B=1,0,2,1,exit:0,wall-time,100,ns,0,0,ok\n";
  auto old = ParseResultsCsv(v1);
  REQUIRE(old.ok());
  CHECK(old->rows[0].repetition == 2);
  CHECK_FALSE(old->rows[0].sampling);
  CHECK(old->rows[0].Find(kWallTime)->value == 100);
  // Each line says its schema: a run that a newer khost resumed appends lines of its own.
  auto mixed = ParseResultsCsv(v1 + ToCsvLines(SampleRow(0, 0)));
  REQUIRE(mixed.ok());
  CHECK(mixed->rows.size() == 2);
  CHECK_FALSE(ParseResultsCsv(v1 + "9,r,5,0,a.elf,k/run/bin/a.elf,B=1,0,2,1,exit:0,wall-time,100,"
                                   "ns,0,0,ok\n")
                  .ok());
  const std::string v2 =
      "schema,run_id,timestamp_ns,variant_index,variant,elf,params,pass,sampling,repetition,valid,"
      "outcome,name,value,unit,enabled_ns,running_ns,status\n"
      "2,r,5,1,a.elf,k/run/bin/a.elf,B=1,0,1,3,1,exit:0,wall-time,100,ns,0,0,ok\n";
  auto two = ParseResultsCsv(v2);
  REQUIRE(two.ok());
  CHECK(two->rows[0].variant_index == 1);
  CHECK(two->rows[0].elf == "k/run/bin/a.elf");
  CHECK(two->rows[0].params == Params{{"B", "1"}});
  CHECK(two->rows[0].sampling);
  CHECK(two->rows[0].repetition == 3);
  CHECK(two->rows[0].board.empty());
  CHECK(two->rows[0].elf_hash.empty());
  CHECK(two->rows[0].Find(kWallTime)->value == 100);
}

TEST_CASE("schema 4: the shape round-trips; schema 3 files read with no shape") {
  RepetitionRow r = SampleRow(0, 0);
  r.shape = {{"M", "64"}, {"N", "8"}};
  auto back = ParseResultsCsv(std::string(kResultsHeader) + "\n" + ToCsvLines(r));
  REQUIRE(back.ok());
  CHECK(back->rows[0].shape == r.shape);
  CHECK(back->rows[0].params == r.params);
  const std::string v3 =
      "schema,run_id,board,timestamp_ns,variant_index,variant,elf,elf_hash,params,pass,sampling,"
      "repetition,valid,outcome,name,value,unit,enabled_ns,running_ns,status\n"
      "3,r,b,5,1,a.elf,k/run/bin/a.elf,h,B=1,2,0,3,1,exit:0,wall-time,100,ns,0,0,ok\n";
  auto three = ParseResultsCsv(v3);
  REQUIRE(three.ok());
  CHECK(three->rows[0].shape.empty());
  CHECK(three->rows[0].params == Params{{"B", "1"}});
  CHECK(three->rows[0].pass == 2);
  CHECK(three->rows[0].repetition == 3);
  CHECK(three->rows[0].board == "b");
  CHECK(three->rows[0].elf_hash == "h");
}

TEST_CASE("outcomes and parameters have text forms that parse back") {
  for (const Outcome& o :
       {Outcome{OutcomeKind::kExited, 3}, Outcome{OutcomeKind::kSignaled, 11},
        Outcome{OutcomeKind::kTimedOut, 0}, Outcome{OutcomeKind::kLaunchFailed, 0}}) {
    auto back = Outcome::Parse(o.ToString());
    REQUIRE(back.ok());
    CHECK(back->ToString() == o.ToString());
  }
  CHECK(Outcome{OutcomeKind::kSignaled, 11}.ToString() == "signal:SIGSEGV");
  CHECK(Outcome::Parse("signal:63")->code == 63);
  CHECK_FALSE(Outcome::Parse("exploded").ok());
  CHECK(FormatParams({{"A", "1"}, {"B", "2"}}) == "A=1;B=2");
  CHECK(ParseParams("A=1;B=2")->size() == 2);
  CHECK(ParseParams("")->empty());
  CHECK_FALSE(ParseParams("A").ok());
}

// A results file in a fresh directory, removed afterwards.
struct TempResults {
  test::UnitTempDir dir{"ktune-results-test"};
  std::string path = dir / "run.csv";
};

TEST_CASE("a results file opened for append: a new one gets the header, an old one its rows") {
  TempResults t;
  const std::string header = std::string(kResultsHeader) + "\n";
  {
    auto f = OpenResultsForAppend(t.path, /*whole_repetitions=*/true);
    REQUIRE(f.ok());
    CHECK(f->rows.empty());
    CHECK(f->dropped_bytes == 0);
    CHECK(ReadFile(t.path).value() == header);
    REQUIRE(WriteAll(f->fd.get(), ToCsvLines(SampleRow(0, 0)) + ToCsvLines(SampleRow(1, 0)), t.path)
                .ok());
  }
  const std::string before = ReadFile(t.path).value();
  auto f = OpenResultsForAppend(t.path, /*whole_repetitions=*/true);
  REQUIRE(f.ok());
  REQUIRE(f->rows.size() == 2);
  CHECK(f->rows[0].variant_index == 0);
  CHECK(f->rows[1].variant_index == 1);
  CHECK(f->rows[1].values.size() == 5);
  CHECK(f->dropped_bytes == 0);
  CHECK(ReadFile(t.path).value() == before);  // the header is not written twice
}

TEST_CASE("a torn last row is cut from the results file; the next row starts its own line") {
  TempResults t;
  const std::string whole = std::string(kResultsHeader) + "\n" + ToCsvLines(SampleRow(0, 0));
  // Torn past its start time: the next repetition's line, so the last whole one stays.
  REQUIRE(WriteFileAtomic(t.path, whole + ToCsvLines(SampleRow(0, 1)).substr(0, 150)).ok());
  auto f = OpenResultsForAppend(t.path, /*whole_repetitions=*/true);
  REQUIRE(f.ok());
  CHECK(f->rows.size() == 1);
  CHECK(f->dropped_bytes == 150);
  CHECK(ReadFile(t.path).value() == whole);
  REQUIRE(WriteAll(f->fd.get(), ToCsvLines(SampleRow(0, 1)), t.path).ok());
  auto back = ParseResultsCsv(ReadFile(t.path).value());
  REQUIRE(back.ok());
  CHECK(back->torn_lines == 0);
  REQUIRE(back->rows.size() == 2);
  CHECK(back->rows[1].repetition == 1);
  CHECK(back->rows[1].values.size() == 5);
}

// Found in review (issue 33): a write torn inside a repetition left its first values, and the
// agent, taking the repetition for measured, never measured the rest.
TEST_CASE("a torn line of the last repetition takes that repetition with it") {
  TempResults t;
  const std::string head = std::string(kResultsHeader) + "\n" + ToCsvLines(SampleRow(0, 0));
  const std::string second = ToCsvLines(SampleRow(0, 1));
  const size_t two_lines = second.find('\n', second.find('\n') + 1) + 1;
  // Two whole lines of repetition 1, then its third torn: repetition 1 goes whole.
  REQUIRE(WriteFileAtomic(t.path, head + second.substr(0, two_lines + 200)).ok());
  auto f = OpenResultsForAppend(t.path, /*whole_repetitions=*/true);
  REQUIRE(f.ok());
  REQUIRE(f->rows.size() == 1);
  CHECK(f->rows[0].repetition == 0);
  CHECK(f->dropped_bytes == two_lines + 200);
  CHECK(ReadFile(t.path).value() == head);
  // A torn line too short to tell whose it is (it holds no start time yet) counts as the last
  // repetition's: repetition 0 is measured again, nothing is taken for whole that may not be.
  REQUIRE(WriteFileAtomic(t.path, head + second.substr(0, 30)).ok());
  auto short_torn = OpenResultsForAppend(t.path, /*whole_repetitions=*/true);
  REQUIRE(short_torn.ok());
  CHECK(short_torn->rows.empty());
  CHECK(ReadFile(t.path).value() == std::string(kResultsHeader) + "\n");
}

TEST_CASE("WholeRepetitionsBytes: a torn line takes the last repetition when it may be of it") {
  const std::string head = std::string(kResultsHeader) + "\n";
  const std::string rep0 = ToCsvLines(SampleRow(0, 0)), rep1 = ToCsvLines(SampleRow(0, 1));
  const std::string text = head + rep0 + rep1;
  CHECK(WholeRepetitionsBytes(text) == text.size());                           // nothing torn
  CHECK(WholeRepetitionsBytes(head + "4,2") == head.size());                   // no row to take
  CHECK(WholeRepetitionsBytes(text + "4,2026") == head.size() + rep0.size());  // can't tell
  // A line of another repetition, torn past what differs (its start time): only it goes.
  CHECK(WholeRepetitionsBytes(text + ToCsvLines(SampleRow(0, 2)).substr(0, 120)) == text.size());
  CHECK(WholeRepetitionsBytes(text + ToCsvLines(SampleRow(1, 1)).substr(0, 120)) == text.size());
  // Its own line, torn anywhere: the whole repetition goes, and only it.
  for (size_t cut : {size_t{1}, size_t{60}, size_t{200}, rep1.find('\n') - 1}) {
    CAPTURE(cut);
    CHECK(WholeRepetitionsBytes(head + rep0 + rep1.substr(0, rep1.find('\n') + 1 + cut)) ==
          head.size() + rep0.size());
  }
}

TEST_CASE("a results file torn inside its header starts again with the header") {
  TempResults t;
  REQUIRE(WriteFileAtomic(t.path, std::string(kResultsHeader).substr(0, 20)).ok());
  auto f = OpenResultsForAppend(t.path, /*whole_repetitions=*/true);
  REQUIRE(f.ok());
  CHECK(f->rows.empty());
  CHECK(f->dropped_bytes == 20);
  CHECK(ReadFile(t.path).value() == std::string(kResultsHeader) + "\n");
  // Something else than a results file is an error naming it, and is left as it was.
  REQUIRE(WriteFileAtomic(t.path, "not,results\n").ok());
  auto bad = OpenResultsForAppend(t.path, /*whole_repetitions=*/true);
  CHECK_FALSE(bad.ok());
  CHECK(bad.status().message().find(t.path) != std::string::npos);
  CHECK(ReadFile(t.path).value() == "not,results\n");
}

TEST_CASE("a row's key is its variant, pass and repetition") {
  RepetitionRow a = SampleRow(3, 2);
  a.pass = 1;
  CHECK(KeyOf(a) == RowKey{3, 1, 2});
  RepetitionRow same = a;  // another measurement of the same repetition
  same.timestamp_ns += 1000;
  same.values.clear();
  CHECK(KeyOf(same) == KeyOf(a));
  RepetitionRow other_pass = a;
  other_pass.pass = 2;
  CHECK(KeyOf(other_pass) != KeyOf(a));
  CHECK(KeyOf(SampleRow(3, 3)) != KeyOf(SampleRow(3, 2)));
  CHECK(KeyOf(SampleRow(4, 2)) != KeyOf(SampleRow(3, 2)));
}

TEST_CASE("run ids are safe directory and file names") {
  CHECK(ValidateRunId("20261122T031500Z-3fa2c1").ok());
  CHECK(ValidateRunId("20261122T031500.123Z-3fa2c1").ok());
  CHECK(ValidateRunId("a_B-9.x").ok());
  CHECK(ValidateRunId(std::string(64, 'r')).ok());
  CHECK_FALSE(ValidateRunId(std::string(65, 'r')).ok());
  for (const char* bad : {"", "../x", "a/b", ".x", "..", "a b", "a\nb", "r\xc3\xa9", "a:b"}) {
    CAPTURE(bad);
    const Status s = ValidateRunId(bad);
    CHECK(s.code() == ErrorCode::kInvalidArgument);
  }
  CHECK(ValidateRunId("a/b").message() == "invalid run id 'a/b'");
}

}  // namespace
}  // namespace ktune
