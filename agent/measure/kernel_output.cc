#include "agent/measure/kernel_output.h"

#include "common/kernel_output.h"
#include "common/strings.h"

namespace ktune::agent {
namespace {

void SkipSpaces(std::string_view& s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
}

bool Consume(std::string_view& s, std::string_view word) {
  if (!s.starts_with(word)) return false;
  s.remove_prefix(word.size());
  return true;
}

std::optional<double> ParseTimeLine(std::string_view line) {
  size_t at = line.find("Running ");
  if (at == std::string_view::npos) return std::nullopt;
  line.remove_prefix(at + 8);
  size_t kernel = line.find(" Kernel ");
  if (kernel == std::string_view::npos || kernel == 0) return std::nullopt;
  line.remove_prefix(kernel + 8);
  SkipSpaces(line);
  if (Consume(line, "Average")) SkipSpaces(line);
  if (!Consume(line, "Time:")) return std::nullopt;
  SkipSpaces(line);
  size_t consumed = 0;
  const std::optional<double> parsed = ParseDoublePrefix(line, &consumed);
  if (!parsed) return std::nullopt;
  const double v = *parsed;
  line.remove_prefix(consumed);
  SkipSpaces(line);
  double scale = 1.0;
  if (Consume(line, "ms")) {
    scale = 1e-3;
  } else if (Consume(line, "us")) {
    scale = 1e-6;
  } else if (Consume(line, "ns")) {
    scale = 1e-9;
  } else {
    Consume(line, "s");
  }
  SkipSpaces(line);
  if (!line.empty() && line != "\r") return std::nullopt;
  return v * scale;
}

}  // namespace

void OutputScanner::Feed(std::string_view chunk) {
  // Enough to see the failure mark straddle two chunks.
  constexpr size_t kKeep = kOutputFailure.size() - 1;
  if (!failure_) {
    std::string boundary = carry_;
    boundary.append(chunk.substr(0, kKeep));
    failure_ = OutputReportsFailure(boundary) || OutputReportsFailure(chunk);
    carry_.append(chunk.size() > kKeep ? chunk.substr(chunk.size() - kKeep) : chunk);
    if (carry_.size() > kKeep) carry_.erase(0, carry_.size() - kKeep);
  }
  while (!chunk.empty()) {
    const size_t nl = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, nl);
    if (!line_too_long_) {
      if (line_.size() + piece.size() > kMaxTimeLineBytes) {
        line_too_long_ = true;
        line_.clear();
      } else {
        line_.append(piece);
      }
    }
    if (nl == std::string_view::npos) return;
    EndLine();
    chunk.remove_prefix(nl + 1);
  }
}

void OutputScanner::Finish() {
  EndLine();
}

void OutputScanner::EndLine() {
  if (!kernel_time_s_ && !line_too_long_) kernel_time_s_ = ParseTimeLine(line_);
  line_.clear();
  line_too_long_ = false;
}

}  // namespace ktune::agent
