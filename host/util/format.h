// How khost writes numbers for people: the one owner of their formatting, shared by run's and
// report's tables, analysis, comparison, search progress, plots, the HTML report and the notes, so
// that a quantity reads the same everywhere (a time auto-scaled to s, ms or us with its unit in
// the cell: "1.137 ms"). Every function returns exactly what its printf format gives (no locale:
// the C locale's '.').
#pragma once

#include <optional>
#include <string>

namespace ktune::host {

// One double through a printf format taking exactly one double ("%.3f", "%g", "%.2fx"); longer
// results are cut at 63 characters.
std::string FormatWith(const char* format, double v);

// `v` with `digits` decimals ("%.*f"): "0.001234" for (0.0012345, 6).
std::string FormatFixed(double v, int digits);

// A count or ratio as people read it: integers, and anything from 10000 up, with no decimals;
// others to 4 significant digits ("1234", "96570001", "0.5432", "12.35", "1.235e+15").
std::string FormatNumber(double v);

// A p-value to 4 decimals, "< 0.0001" below that.
std::string FormatPValue(double p);
// The p-value in a sentence: "p = 0.0123", or "p < 0.0001".
std::string FormatPClause(double p);

// A speed-up or ratio: "12.3x" from 10 up, "1.24x" below.
std::string FormatRatio(double r);

// A correlation coefficient, signed, to 3 decimals: "+0.873", "-0.120".
std::string FormatCorrelation(double r);

// A percentage (already times 100) to 1 decimal: "12.5%".
std::string FormatPercent(double percent);

// The unit a time reads best in: s, ms or us, by its size; `per_unit` converts from the value's
// own unit ("s" or "ns") into it.
struct TimeDisplay {
  double per_unit = 1;
  const char* name = "s";
};
TimeDisplay DisplayFor(double value, const std::string& unit);

// The 95% interval of a median in ns for people, "888 us .. 1.126 ms"; "(n < 6)" without one
// (fewer repetitions than an interval needs, common/median.h).
std::string FormatMedianInterval(std::optional<double> low_ns, std::optional<double> high_ns);

// A time of `unit` ("s" or "ns") in the unit it reads best in, to 4 significant digits:
// "187.3 us", "1.202 ms", "2.5 s". Other units print as numbers.
std::string FormatTime(double value, const std::string& unit);

}  // namespace ktune::host
