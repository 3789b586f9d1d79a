#include "agent/kernel_output.h"

#include <charconv>

namespace ktune {
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
  double v = 0;
  auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
  if (ec != std::errc() || ptr == line.data()) return std::nullopt;
  line.remove_prefix(static_cast<size_t>(ptr - line.data()));
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

std::optional<double> ParseKernelTimeSeconds(std::string_view output) {
  while (!output.empty()) {
    size_t nl = output.find('\n');
    std::string_view line = output.substr(0, nl);
    if (auto t = ParseTimeLine(line)) return t;
    if (nl == std::string_view::npos) break;
    output.remove_prefix(nl + 1);
  }
  return std::nullopt;
}

bool OutputReportsFailure(std::string_view output) {
  return output.find("NOT OK") != std::string_view::npos;
}

}  // namespace ktune
