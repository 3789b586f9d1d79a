#include <doctest/doctest.h>

#include "agent/measure/kernel_output.h"

namespace ktune::agent {
namespace {

// Scans `text` fed in pieces of `piece` bytes.
OutputScanner Scan(std::string_view text, size_t piece = 1 << 20) {
  OutputScanner s;
  for (size_t at = 0; at < text.size(); at += piece) s.Feed(text.substr(at, piece));
  s.Finish();
  return s;
}

std::optional<double> Time(std::string_view text) {
  return Scan(text).kernel_time_s();
}

TEST_CASE("every seed time format is read") {
  CHECK(*Time("Running Triton Kernel Time: 0.012 s\n") == doctest::Approx(0.012));
  CHECK(*Time("x\nRunning C Kernel Time: 1.5 s\nout OK\n") == 1.5);
  CHECK(*Time("Running Triton Kernel Average Time: 5e-05 s") == 5e-05);
  CHECK(*Time("Running Triton Kernel Time: 1.2E+01 s\r\n") == 12.0);
}

TEST_CASE("units other than seconds are converted; a missing unit means seconds") {
  CHECK(*Time("Running C Kernel Time: 250 ms") == doctest::Approx(0.25));
  CHECK(*Time("Running C Kernel Time: 3 us") == doctest::Approx(3e-6));
  CHECK(*Time("Running C Kernel Time: 7") == 7.0);
}

TEST_CASE("the first time line counts; lines that only look similar do not") {
  CHECK(*Time("Running C Kernel Time: 1 s\nRunning C Kernel Time: 2 s\n") == 1);
  CHECK_FALSE(Time("Kernel Time: 1 s").has_value());
  CHECK_FALSE(Time("Running Triton Kernel Time: fast").has_value());
  CHECK_FALSE(Time("Running Triton Kernel Time: 1 s and more").has_value());
  CHECK_FALSE(Time("").has_value());
}

TEST_CASE("output split anywhere reads the same, one byte at a time included") {
  const std::string text = "noise\nRunning Triton Kernel Average Time: 5e-05 s\nout NOT OK\n";
  for (size_t piece : {1, 2, 3, 7, 64}) {
    OutputScanner s = Scan(text, piece);
    CHECK_MESSAGE(*s.kernel_time_s() == 5e-05, piece);
    CHECK_MESSAGE(s.reports_failure(), piece);
  }
}

TEST_CASE("a very long line is not a time line, and does not hide the next one") {
  std::string text(kMaxTimeLineBytes + 10, 'x');
  text += "Running C Kernel Time: 9 s\nRunning C Kernel Time: 2 s\n";
  CHECK(*Time(text) == 2);
}

TEST_CASE("NOT OK anywhere in the output marks a failed check, also across pieces") {
  CHECK(Scan("out NOT OK\n").reports_failure());
  CHECK_FALSE(Scan("out OK\n").reports_failure());
  OutputScanner s;
  s.Feed("out NO");
  s.Feed("T OK\n");
  CHECK(s.reports_failure());
  OutputScanner t;
  for (const char* p : {"N", "O", "T", " ", "O", "K"}) t.Feed(p);
  CHECK(t.reports_failure());
  OutputScanner u;
  u.Feed("NOT");
  u.Feed(" ok NOT O");  // never completes
  CHECK_FALSE(u.reports_failure());
}

}  // namespace
}  // namespace ktune::agent
