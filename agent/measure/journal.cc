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
  KT_ASSIGN_OR_RETURN(ResultsAppend results, OpenResultsForAppend(files.results));
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
      on_durable_(std::move(on_durable)),
      thread_([this] { Loop(); }) {}

Journal::~Journal() {
  (void)Close();
}

void Journal::Append(RepetitionRow row, std::string excerpt, std::optional<Profile> profile) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back({std::move(row), std::move(excerpt), std::move(profile)});
}

Status Journal::status() {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

Status Journal::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
    cv_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
  return status();
}

void Journal::Loop() {
  for (;;) {
    std::deque<Entry> batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (!closing_) cv_.wait_for(lock, std::chrono::nanoseconds(kJournalSyncIntervalNs));
      if (queue_.empty()) {
        if (closing_) return;  // everything is written
        continue;
      }
      batch.swap(queue_);
      if (!error_.ok()) continue;  // after a failure nothing more is written or sent
    }
    std::string text;
    for (const Entry& e : batch) text += ToCsvLines(e.row);
    Status s = WriteProfiles(batch);
    if (s.ok()) s = WriteAll(fd_.get(), text, files_.results);
    if (s.ok() && ::fdatasync(fd_.get()) != 0) s = ErrnoError("fsync " + files_.results, errno);
    if (!s.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      error_ = s;
      continue;
    }
    for (const Entry& e : batch) on_durable_(e.row, e.excerpt, e.profile ? &*e.profile : nullptr);
  }
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
  KT_ASSIGN_OR_RETURN(ResultsFile file, ParseResultsCsv(*text));
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
