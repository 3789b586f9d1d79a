// agent/measure/journal.h: rows are written, synced and handed on in the order they came, by
// Append on the caller's thread when a batch is due (the first row at once) or at close; batches
// are spaced by the interval or 20 times a slow sync; a reopened journal appends after what it
// holds.
#include "agent/measure/journal.h"

#include <doctest/doctest.h>

#include <vector>

#include "common/fs.h"
#include "common/results.h"

#include "tests/unit/temp_dir.h"

namespace ktune::agent {
namespace {

RepetitionRow Row(uint32_t repetition) {
  RepetitionRow row;
  row.run_id = "20261126T120000.000Z-abcdef";
  row.board = "x86_64:test";
  row.variant = "ok.elf";
  row.elf = "k/run/bin/ok.elf";
  row.elf_hash = std::string(64, 'a');
  row.repetition = repetition;
  row.valid = true;
  row.values.push_back({kWallTime, 1e6 + repetition, "ns", 0, 0, ValueStatus::kOk});
  return row;
}

// The repetitions handed on so far (on the thread that appends or closes).
struct Handed {
  std::vector<uint32_t> repetitions;

  Journal::OnDurable Sink() {
    return [this](const RepetitionRow& row, const std::string&, const Profile*) {
      repetitions.push_back(row.repetition);
    };
  }
};

// A fresh directory and the journal's files in it.
struct JournalDir {
  test::UnitTempDir dir{"ktune-journal-test"};
  JournalFiles files{dir / "results.csv", dir / "profiles.frames"};

  // The journal of these files, handing its rows to `handed`.
  std::unique_ptr<Journal> Open(Handed& handed) const {
    return Journal::Open(files, handed.Sink()).value();
  }
};

std::vector<uint32_t> RepetitionsIn(const JournalFiles& files) {
  auto rows = Journal::ReadRows(files);
  REQUIRE(rows.ok());
  std::vector<uint32_t> out;
  for (const RepetitionRow& row : *rows) out.push_back(row.repetition);
  return out;
}

TEST_CASE(
    "rows are written, then handed on, in order: the first at once, the rest when due or at "
    "close") {
  const JournalDir at;
  Handed handed;
  auto journal = at.Open(handed);
  // The first row is written, synced and handed on before Append returns, on this thread.
  journal->Append(Row(0), "");
  CHECK(handed.repetitions == std::vector<uint32_t>{0});
  CHECK(RepetitionsIn(at.files) == std::vector<uint32_t>{0});

  journal->Append(Row(1), "");
  journal->Append(Row(2), "");
  journal->Append(Row(3), "");
  REQUIRE(journal->Close().ok());
  // Handed on once each, in order, and in the file once each.
  CHECK(handed.repetitions == std::vector<uint32_t>{0, 1, 2, 3});
  CHECK(RepetitionsIn(at.files) == std::vector<uint32_t>{0, 1, 2, 3});
}

TEST_CASE(
    "the next batch is due after the interval, or after 20 times a sync slower than 12.5 ms") {
  CHECK(NextSyncDelayNs(0) == kJournalSyncIntervalNs);
  CHECK(NextSyncDelayNs(117'000) == 250'000'000);  // this VM's fdatasync
  CHECK(NextSyncDelayNs(12'500'000) == 250'000'000);
  CHECK(NextSyncDelayNs(12'500'001) == 250'000'020);
  CHECK(NextSyncDelayNs(30'000'000) == 600'000'000);  // a slow SD card: 5% of the time syncing
}

TEST_CASE("Flush writes and hands on what is queued, due or not") {
  const JournalDir at;
  Handed handed;
  auto journal = at.Open(handed);
  journal->Append(Row(0), "");  // at once: the first
  journal->Append(Row(1), "");
  journal->Flush();
  CHECK(handed.repetitions == std::vector<uint32_t>{0, 1});
  CHECK(RepetitionsIn(at.files) == std::vector<uint32_t>{0, 1});
  journal->Flush();  // nothing queued: nothing written
  REQUIRE(journal->Close().ok());
  CHECK(handed.repetitions == std::vector<uint32_t>{0, 1});
  CHECK(RepetitionsIn(at.files) == std::vector<uint32_t>{0, 1});
}

TEST_CASE("a journal closed with nothing queued writes nothing") {
  const JournalDir at;
  Handed handed;
  auto journal = at.Open(handed);
  REQUIRE(journal->Close().ok());
  CHECK(handed.repetitions.empty());
  CHECK(RepetitionsIn(at.files).empty());
}

TEST_CASE("a reopened journal keeps its rows and appends after them") {
  const JournalDir at;
  {
    Handed handed;
    auto journal = at.Open(handed);
    journal->Append(Row(0), "");
    REQUIRE(journal->Close().ok());
  }
  Handed handed;
  auto journal = at.Open(handed);
  REQUIRE(journal->rows_before().size() == 1);
  CHECK(journal->rows_before()[0].repetition == 0);
  journal->Append(Row(1), "");
  REQUIRE(journal->Close().ok());
  CHECK(handed.repetitions == std::vector<uint32_t>{1});
  CHECK(RepetitionsIn(at.files) == std::vector<uint32_t>{0, 1});
}

// Found in review (issue 33): a write torn inside a repetition left its first values; the agent
// replayed them to a fetching host, then measured the repetition again, so the host held two
// measurements of it, one in part.
TEST_CASE("a repetition a torn write left in part is neither replayed nor kept") {
  const JournalDir at;
  RepetitionRow two = Row(1);
  two.values.push_back({kTaskClock, 5, "ns", 0, 0, ValueStatus::kOk});
  two.values.push_back({"cycles", 0, "", 0, 0, ValueStatus::kNotSupported});
  const std::string whole = std::string(kResultsHeader) + "\n" + ToCsvLines(Row(0));
  const std::string lines = ToCsvLines(two);
  REQUIRE(WriteFileAtomic(at.files.results, whole + lines.substr(0, lines.size() - 10)).ok());
  CHECK(RepetitionsIn(at.files) == std::vector<uint32_t>{0});  // what a fetch replays
  Handed handed;
  auto journal = at.Open(handed);
  REQUIRE(journal->rows_before().size() == 1);  // what the run measures again: repetition 1
  REQUIRE(journal->Close().ok());
  CHECK(ReadFile(at.files.results).value() == whole);
}

}  // namespace
}  // namespace ktune::agent
