#include "agent/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace ktune {

Result<std::unique_ptr<Journal>> Journal::Open(const std::string& path, OnDurable on_durable) {
  struct stat st;
  const bool fresh = ::stat(path.c_str(), &st) != 0 || st.st_size == 0;
  KT_ASSIGN_OR_RETURN(ScopedFd fd, OpenFile(path, O_WRONLY | O_CREAT | O_APPEND));
  if (fresh) {
    KT_RETURN_IF_ERROR(WriteAll(fd.get(), std::string(kResultsHeader) + "\n", path));
    if (::fdatasync(fd.get()) != 0) return ErrnoError("fsync " + path, errno);
  }
  return std::unique_ptr<Journal>(new Journal(path, std::move(fd), std::move(on_durable)));
}

Journal::Journal(std::string path, ScopedFd fd, OnDurable on_durable)
    : path_(std::move(path)),
      fd_(std::move(fd)),
      on_durable_(std::move(on_durable)),
      thread_([this] { Loop(); }) {}

Journal::~Journal() {
  (void)Close();
}

void Journal::Append(RepetitionRow row, std::string excerpt) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back({std::move(row), std::move(excerpt)});
  cv_.notify_one();
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
      cv_.wait(lock, [this] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;  // closing, and everything is written
      batch.swap(queue_);
      if (!error_.ok()) continue;  // after a failure nothing more is written or sent
    }
    std::string text;
    for (const Entry& e : batch) text += ToCsvLines(e.row);
    Status s = WriteAll(fd_.get(), text, path_);
    if (s.ok() && ::fdatasync(fd_.get()) != 0) s = ErrnoError("fsync " + path_, errno);
    if (!s.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      error_ = s;
      continue;
    }
    for (const Entry& e : batch) on_durable_(e.row, e.excerpt);
  }
}

}  // namespace ktune
