// The agent's per-run results: a results file (results.csv), and a profiles file
// (profiles.frames) for the sampling profiles, one protocol frame each; the store names them
// (agent/store/layout.h, RunLayout) and the server hands their paths over as JournalFiles. Rows
// are appended and fsynced on a thread of their own, in batches, so the disk's latency stays out
// of the measurement loop; each row (with its profile) is handed to `on_durable` (which sends it
// to the host) only after its fsync returned. The writer takes what is queued once every
// kJournalSyncIntervalNs, not at each row: with short kernels, a write, its fsync, the interrupt
// and work queue of the disk, the sending and the host's work on the row would otherwise come
// between every two runs, or share every run. A row reaches the host about that much later (plus
// the write and fsync of its batch); an agent that dies loses about that much of its measurements
// (khost run --resume measures them again).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/fs.h"
#include "common/profile.h"
#include "common/results.h"
#include "common/status.h"
#include "protocol/ktune.pb.h"

namespace ktune::agent {

constexpr uint64_t kJournalSyncIntervalNs = 100'000'000;

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
  // existing one, of a run being resumed, keeps its rows and loses an unterminated last line),
  // and cuts the profiles file back to its last whole frame.
  static Result<std::unique_ptr<Journal>> Open(JournalFiles files, OnDurable on_durable);
  // The rows the file held when opened.
  const std::vector<RepetitionRow>& rows_before() const { return rows_before_; }

  // What the journal in `files` holds, for a host fetching the run: its rows (none before the
  // first; a torn last line is left out; a file that does not parse is an error), and its
  // profiles as the SampleProfile messages that went with their rows (a torn last frame is left
  // out).
  static Result<std::vector<RepetitionRow>> ReadRows(const JournalFiles& files);
  static std::map<RowKey, wire::Envelope> ReadProfiles(const JournalFiles& files);
  ~Journal();

  // Queues a row and its profile; returns at once. The writer takes it within
  // kJournalSyncIntervalNs (or at Close).
  void Append(RepetitionRow row, std::string excerpt, std::optional<Profile> profile = {});
  // The first write or fsync error so far (ok while none happened).
  Status status();
  // Writes everything queued, stops the writer thread, and returns status().
  Status Close();

 private:
  Journal(JournalFiles files, ScopedFd fd, std::vector<RepetitionRow> rows_before,
          OnDurable on_durable);
  struct Entry {
    RepetitionRow row;
    std::string excerpt;
    std::optional<Profile> profile;
  };
  void Loop();
  Status WriteProfiles(const std::deque<Entry>& batch);
  const JournalFiles files_;
  ScopedFd fd_;
  std::vector<RepetitionRow> rows_before_;
  ScopedFd profiles_fd_;  // opened with the first profile
  OnDurable on_durable_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Entry> queue_;
  bool closing_ = false;
  Status error_;
  std::thread thread_;  // last: starts once the members above exist
};

// The SampleProfile message of `row`'s profile: as kept in profiles.frames and sent after the
// row.
wire::Envelope SampleProfileMessage(const RepetitionRow& row, const Profile& profile);

}  // namespace ktune::agent
