// The agent's per-run results: a results file (results.csv), and a profiles file
// (profiles.frames) for the sampling profiles, one protocol frame each; the store names them
// (agent/store/layout.h, RunLayout) and the server hands their paths over as JournalFiles. Rows
// are appended and fsynced in batches, each row (with its profile) handed to `on_durable` (which
// sends it to the host) only after its fsync returned.
//
// The batches are written by the measurer's own thread, between two runs: Append writes what is
// queued when the last batch is kJournalSyncIntervalNs old, so that with short kernels a write,
// its fsync and the disk's interrupt (which may be handled on the measured CPU: on this VM it is
// bound to CPU 1) come once every 0.25 s and never while a kernel runs (docs/BENCHMARKS.md, P7).
// Where a sync is slow (an SD card), batches are spaced further, so that syncing takes at most
// 1 / kJournalSyncTimeShare of the time. A row reaches the host up to that much later (or after
// the next run, when that one is longer); an agent that dies loses the rows queued since the
// last batch (khost run --resume measures them again).
#pragma once

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/fs.h"
#include "common/profile.h"
#include "common/results.h"
#include "common/status.h"
#include "protocol/ktune.pb.h"

namespace ktune::agent {

constexpr uint64_t kJournalSyncIntervalNs = 250'000'000;
constexpr uint64_t kJournalSyncTimeShare = 20;

// How long after a batch that took `sync_ns` (to write, sync and hand on: its whole time on the
// measurer's path) the next one is due: the interval, or 20 times that when it is longer.
constexpr uint64_t NextSyncDelayNs(uint64_t sync_ns) {
  return std::max(kJournalSyncIntervalNs, sync_ns * kJournalSyncTimeShare);
}

// Where a run's journal is kept.
struct JournalFiles {
  std::string results;   // the rows (common/results.h's CSV)
  std::string profiles;  // the profiles, SampleProfile frames
};

class Journal {
 public:
  // `profile` is null for a row without samples.
  using OnDurable = std::function<void(const RepetitionRow& row, const std::string& excerpt,
                                       const Profile* profile)>;

  // Opens the results file to append to (common/results.h: a new one gets the header; an
  // existing one, of a run being resumed, keeps its rows and loses an unterminated last line with
  // the repetition it was of, which is then measured again), and cuts the profiles file back to
  // its last whole frame.
  static Result<std::unique_ptr<Journal>> Open(JournalFiles files, OnDurable on_durable);
  // The rows the file held when opened.
  const std::vector<RepetitionRow>& rows_before() const { return rows_before_; }

  // What the journal in `files` holds, for a host fetching the run: its rows (none before the
  // first; a torn last line is left out with the repetition it was of, as Open cuts them; a file
  // that does not parse is an error), and its
  // profiles as the SampleProfile messages that went with their rows (a torn last frame is left
  // out).
  static Result<std::vector<RepetitionRow>> ReadRows(const JournalFiles& files);
  static std::map<RowKey, wire::Envelope> ReadProfiles(const JournalFiles& files);
  ~Journal();

  // Queues a row and its profile, then writes, syncs and hands on everything queued when a batch
  // is due (the first row's at once). Called between two runs, never while a kernel runs.
  void Append(RepetitionRow row, std::string excerpt, std::optional<Profile> profile = {});
  // The first write or fsync error so far (ok while none happened); after one, nothing more is
  // written or handed on.
  Status status() const { return error_; }
  // Writes everything queued now, due or not (before a wait or a warm-up run).
  void Flush();
  // Writes everything queued and returns status().
  Status Close();

 private:
  Journal(JournalFiles files, ScopedFd fd, std::vector<RepetitionRow> rows_before,
          OnDurable on_durable);
  struct Entry {
    RepetitionRow row;
    std::string excerpt;
    std::optional<Profile> profile;
  };
  // Writes, syncs and hands on the queue.
  void WriteBatch();
  Status WriteProfiles(const std::deque<Entry>& batch);
  const JournalFiles files_;
  ScopedFd fd_;
  std::vector<RepetitionRow> rows_before_;
  ScopedFd profiles_fd_;  // opened with the first profile
  OnDurable on_durable_;
  std::deque<Entry> queue_;
  using Clock = std::chrono::steady_clock;
  Clock::time_point next_sync_;  // the clock's epoch: the first row is written at once
  Status error_;
};

// The SampleProfile message of `row`'s profile: as kept in profiles.frames and sent after the
// row.
wire::Envelope SampleProfileMessage(const RepetitionRow& row, const Profile& profile);

}  // namespace ktune::agent
