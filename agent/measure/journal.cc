#include "agent/measure/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "protocol/convert.h"
#include "protocol/frame_codec.h"

namespace ktune::agent {

Result<std::unique_ptr<Journal>> Journal::Open(JournalFiles files, OnDurable on_durable) {
  KT_ASSIGN_OR_RETURN(ResultsAppend results,
                      OpenResultsForAppend(files.results, /*whole_repetitions=*/true));
  // A frame the agent was writing when it died goes the way of a torn row.
  const std::string& frames = files.profiles;
  if (auto text = ReadFile(frames); text.ok()) {
    const size_t whole = WholeFramesBytes(*text);
    if (whole < text->size() && ::truncate(frames.c_str(), static_cast<off_t>(whole)) != 0) {
      return ErrnoError("truncate " + frames, errno);
    }
  }
  return std::unique_ptr<Journal>(new Journal(std::move(files), std::move(results.fd),
                                              std::move(results.rows), std::move(on_durable)));
}

Journal::Journal(JournalFiles files, ScopedFd fd, std::vector<RepetitionRow> rows_before,
                 OnDurable on_durable)
    : files_(std::move(files)),
      fd_(std::move(fd)),
      rows_before_(std::move(rows_before)),
      on_durable_(std::move(on_durable)) {}

Journal::~Journal() {
  (void)Close();
}

void Journal::Append(RepetitionRow row, std::string excerpt, std::optional<Profile> profile) {
  if (!error_.ok()) return;  // after a failure nothing more is written or sent
  queue_.push_back({std::move(row), std::move(excerpt), std::move(profile)});
  if (Clock::now() >= next_sync_) Flush();
}

void Journal::Flush() {
  if (error_.ok() && !queue_.empty()) WriteBatch();
}

Status Journal::Close() {
  Flush();
  return error_;
}

void Journal::WriteBatch() {
  const Clock::time_point start = Clock::now();
  std::string text;
  for (const Entry& e : queue_) text += ToCsvLines(e.row);
  Status s = WriteProfiles(queue_);
  if (s.ok()) s = WriteAll(fd_.get(), text, files_.results);
  if (s.ok() && ::fdatasync(fd_.get()) != 0) s = ErrnoError("fsync " + files_.results, errno);
  if (!s.ok()) {
    error_ = s;
    queue_.clear();
    return;
  }
  for (const Entry& e : queue_) on_durable_(e.row, e.excerpt, e.profile ? &*e.profile : nullptr);
  queue_.clear();
  const Clock::time_point end = Clock::now();
  const auto sync_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
  next_sync_ = end + std::chrono::nanoseconds(NextSyncDelayNs(static_cast<uint64_t>(sync_ns)));
}

Status Journal::WriteProfiles(const std::deque<Entry>& batch) {
  std::string frames;
  for (const Entry& e : batch) {
    if (!e.profile) continue;
    KT_ASSIGN_OR_RETURN(std::string frame,
                        FrameCodec().Encode(SampleProfileMessage(e.row, *e.profile)));
    frames += frame;
  }
  if (frames.empty()) return Status::Ok();
  const std::string& path = files_.profiles;
  if (!profiles_fd_.valid()) {
    KT_ASSIGN_OR_RETURN(profiles_fd_, OpenFile(path, O_WRONLY | O_CREAT | O_APPEND));
  }
  KT_RETURN_IF_ERROR(WriteAll(profiles_fd_.get(), frames, path));
  if (::fdatasync(profiles_fd_.get()) != 0) return ErrnoError("fsync " + path, errno);
  return Status::Ok();
}

Result<std::vector<RepetitionRow>> Journal::ReadRows(const JournalFiles& files) {
  auto text = ReadFile(files.results);
  if (!text.ok()) return std::vector<RepetitionRow>();
  // What Open would keep: no repetition a torn write left in part is sent, only to be measured
  // again once the run goes on.
  KT_ASSIGN_OR_RETURN(ResultsFile file, ParseResultsCsv(std::string_view(*text).substr(
                                            0, WholeRepetitionsBytes(*text))));
  return std::move(file.rows);
}

std::map<RowKey, wire::Envelope> Journal::ReadProfiles(const JournalFiles& files) {
  std::map<RowKey, wire::Envelope> profiles;
  auto frames = ReadFile(files.profiles);
  if (!frames.ok()) return profiles;
  FrameCodec codec;
  codec.Feed(std::string_view(*frames).substr(0, WholeFramesBytes(*frames)));
  for (;;) {
    auto next = codec.Next();
    if (!next.ok() || !next->has_value()) break;
    const wire::SampleProfile& p = (*next)->sample_profile();
    profiles[{p.variant_index(), p.pass(), p.repetition()}] = std::move(**next);
  }
  return profiles;
}

wire::Envelope SampleProfileMessage(const RepetitionRow& row, const Profile& profile) {
  wire::Envelope env;
  auto* p = env.mutable_sample_profile();
  p->set_run_id(row.run_id);
  p->set_variant_index(row.variant_index);
  p->set_pass(row.pass);
  p->set_repetition(row.repetition);
  ProfileToWire(profile, p);
  return env;
}

}  // namespace ktune::agent
