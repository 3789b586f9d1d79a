#include "host/util/format.h"

#include <cmath>
#include <cstdio>

namespace ktune::host {

std::string FormatWith(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string FormatFixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string FormatNumber(double v) {
  if (std::fabs(v) >= 1e15) return FormatWith("%.4g", v);
  // A count's median between two repetitions (96570000.5) reads as the counts beside it do.
  if (v == std::round(v) || std::fabs(v) >= 1e4) return FormatWith("%.0f", v);
  return FormatWith("%.4g", v);
}

std::string FormatPValue(double p) {
  return p < 0.0001 ? "< 0.0001" : FormatWith("%.4f", p);
}

std::string FormatPClause(double p) {
  return p < 0.0001 ? "p < 0.0001" : "p = " + FormatPValue(p);
}

std::string FormatRatio(double r) {
  return FormatWith(r >= 10 ? "%.1fx" : "%.2fx", r);
}

std::string FormatCorrelation(double r) {
  return FormatWith("%+.3f", r);
}

std::string FormatPercent(double percent) {
  return FormatWith("%.1f%%", percent);
}

TimeDisplay DisplayFor(double value, const std::string& unit) {
  const double to_seconds = unit == "ns" ? 1e-9 : 1;
  const double seconds = std::fabs(value) * to_seconds;
  if (seconds >= 1 || seconds == 0) return {to_seconds, "s"};
  if (seconds >= 1e-3) return {to_seconds * 1e3, "ms"};
  return {to_seconds * 1e6, "us"};
}

std::string FormatMedianInterval(std::optional<double> low_ns, std::optional<double> high_ns) {
  if (!low_ns || !high_ns) return "(n < 6)";
  return FormatTime(*low_ns, "ns") + " .. " + FormatTime(*high_ns, "ns");
}

std::string FormatTime(double value, const std::string& unit) {
  if (unit != "ns" && unit != "s") return FormatNumber(value) + (unit.empty() ? "" : " " + unit);
  const TimeDisplay d = DisplayFor(value, unit);
  return FormatWith("%.4g", value * d.per_unit) + " " + d.name;
}

}  // namespace ktune::host
