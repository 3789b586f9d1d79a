#include "host/cli/measure_options.h"

#include <cmath>
#include <set>

#include "common/racing.h"
#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/events/event_groups.h"

namespace ktune::host {
namespace {

// Repetitions (and warm-up runs, and rounds) per variant at most.
constexpr int64_t kMaxReps = 100000;
// The highest CPU number --cpu takes (Linux's CONFIG_NR_CPUS at most).
constexpr int64_t kMaxCpu = 8191;
// --record: a sample every N events at most this N; about N samples a second at most this N
// (perf_event_max_sample_rate is 100000 by default).
constexpr int64_t kMaxSamplePeriod = int64_t{1} << 40;
constexpr int64_t kMaxSampleFreq = 1000000;

}  // namespace

void AddMeasureOptions(cxxopts::Options& o, bool order_seed) {
  o.add_options()("events",
                  "comma-separated groups and events (perf's syntax; default: the default group)",
                  cxxopts::value<std::string>()->default_value(""))(
      "reps",
      "measured repetitions per variant, or auto: rounds until each variant is settled or "
      "clearly slower than the best",
      cxxopts::value<std::string>()->default_value("5"))(
      "min-reps", "with --reps auto: rounds before a variant may stop (at least 4)",
      cxxopts::value<std::string>()->default_value("4"))(
      "max-reps", "with --reps auto: rounds at most",
      cxxopts::value<std::string>()->default_value("30"))(
      "target-ci",
      "with --reps auto: the best variant is settled when the 95% interval of its median is "
      "within PCT percent of it",
      cxxopts::value<std::string>()->default_value("2"))(
      "max-time", "with --reps auto: no new round after this many seconds of measuring",
      cxxopts::value<std::string>())(
      "cooldown", "idle this many milliseconds before each repetition but the first",
      cxxopts::value<std::string>()->default_value("0"))(
      "max-temp",
      "before each repetition, wait (up to 5 minutes) until the agent's hottest thermal zone is "
      "below this many degrees Celsius",
      cxxopts::value<std::string>())("warmup", "unmeasured runs before them",
                                     cxxopts::value<std::string>()->default_value("1"))(
      "order",
      "interleaved: rounds, each running every variant once in a shuffled order; sequential: "
      "every repetition of one variant, then the next",
      cxxopts::value<std::string>()->default_value("interleaved"))(
      "timeout", "seconds before a run is killed",
      cxxopts::value<std::string>()->default_value("60"))(
      "cpu", "pin runs to this CPU (-1: no pinning)",
      cxxopts::value<std::string>()->default_value("-1"))(
      "cpu-model",
      "event table to use instead of the agent's detected one: a table (spacemit/x60) or a "
      "RISC-V core id from /proc/cpuinfo (0x710-0x8000000058000001-0x0)",
      cxxopts::value<std::string>()->default_value(""))(
      "multiplex",
      "count all events at once and scale them as perf does, instead of running "
      "each variant once per pass of events that fit the counters")(
      "record", "sample these events in one more run per variant (perf record's -e)",
      cxxopts::value<std::string>()->default_value(""))(
      "period", "a sample every N events", cxxopts::value<std::string>()->default_value("0"))(
      "freq", "about N samples per second (default 4001)",
      cxxopts::value<std::string>()->default_value("0"))("callchain",
                                                         "record user callchains with the samples")(
      "reuse-age",
      "reuse a variant's measurement from the tuning database when it is at most this old (90s, "
      "30m, 24h, 7d; a bare number is seconds) and of the same ELF, inputs, board and method",
      cxxopts::value<std::string>()->default_value("24h"))(
      "fresh", "measure every variant, reusing nothing from the tuning database");
  if (order_seed) {
    o.add_options()("seed",
                    "shuffles the interleaved rounds (default: drawn at random, kept in the run)",
                    cxxopts::value<std::string>());
  }
}

const std::vector<std::string>& MeasureOptionNames(bool order_seed) {
  static const std::vector<std::string> names = {
      "events",   "reps",   "min-reps", "max-reps",  "target-ci", "max-time",  "cooldown",
      "max-temp", "warmup", "order",    "timeout",   "cpu",       "cpu-model", "multiplex",
      "record",   "period", "freq",     "callchain", "reuse-age", "fresh"};
  static const std::vector<std::string> with_seed = [] {
    std::vector<std::string> n = names;
    n.push_back("seed");
    return n;
  }();
  return order_seed ? with_seed : names;
}

namespace {

Status ParseEventOptions(const cxxopts::ParseResult& r, MeasureOptions* opts) {
  const std::string events = r["events"].as<std::string>();
  if (events.empty()) {
    opts->events = {"default"};
  } else {
    KT_ASSIGN_OR_RETURN(opts->events, SplitEventList(events));
  }
  std::set<std::string> seen;
  for (const std::string& e : opts->events) {
    if (!seen.insert(e).second) return InvalidArgument("event " + e + " is listed twice");
  }
  if (const std::string model = r["cpu-model"].as<std::string>(); !model.empty()) {
    KT_ASSIGN_OR_RETURN(opts->cpu_model, CoreTableNamed(model));
  }
  opts->multiplex = r.count("multiplex") > 0;
  return Status::Ok();
}

// --record EVENTS with --period or --freq, and --callchain.
Status ParseSamplingOptions(const cxxopts::ParseResult& r, MeasureOptions* opts) {
  if (const std::string record = r["record"].as<std::string>(); !record.empty()) {
    KT_ASSIGN_OR_RETURN(opts->record, SplitEventList(record));
  }
  KT_ASSIGN_OR_RETURN(opts->sample_period,
                      IntegerOption(r, "period", 0, kMaxSamplePeriod, "a whole number of events"));
  KT_ASSIGN_OR_RETURN(opts->sample_freq, IntegerOption(r, "freq", 0, kMaxSampleFreq,
                                                       "a whole number of samples per second"));
  opts->callchain = r.count("callchain") > 0;
  if (opts->sample_period && opts->sample_freq) {
    return InvalidArgument("--period and --freq are alternatives; give one");
  }
  if (opts->record.empty() && (opts->sample_period || opts->sample_freq || opts->callchain)) {
    return InvalidArgument("--period, --freq and --callchain go with --record");
  }
  return Status::Ok();
}

// --reps auto's --min-reps, --max-reps, --target-ci and --max-time.
Status ParseAdaptiveOptions(const cxxopts::ParseResult& r, MeasureOptions* opts) {
  // From 4: fewer values cannot tell a variant slower at p < 0.05.
  KT_ASSIGN_OR_RETURN(const int64_t min_reps, IntegerOption(r, "min-reps", kMinRacingReps, kMaxReps,
                                                            "a whole number of rounds"));
  KT_ASSIGN_OR_RETURN(const int64_t max_reps,
                      IntegerOption(r, "max-reps", min_reps, kMaxReps,
                                    "a whole number of rounds (at least --min-reps)"));
  KT_ASSIGN_OR_RETURN(const double target_pct,
                      RealOption(r, "target-ci", 0, 50, "a percentage", /*above_min=*/true));
  opts->adaptive = RacingOptions{static_cast<uint32_t>(min_reps), static_cast<uint32_t>(max_reps),
                                 target_pct / 100};
  opts->repetitions = static_cast<uint32_t>(max_reps);
  if (r.count("max-time")) {
    KT_ASSIGN_OR_RETURN(
        const double seconds,
        RealOption(r, "max-time", 0, 30 * 24 * 3600, "a number of seconds", /*above_min=*/true));
    opts->max_time_ms = static_cast<uint64_t>(std::ceil(seconds * 1000));
  }
  return Status::Ok();
}

// --reps (a number, or auto with its options) and --warmup.
Status ParseRepsOption(const cxxopts::ParseResult& r, MeasureOptions* opts) {
  const std::string reps = r["reps"].as<std::string>();
  if (reps == "auto") {
    KT_RETURN_IF_ERROR(ParseAdaptiveOptions(r, opts));
  } else {
    for (const char* o : {"min-reps", "max-reps", "target-ci", "max-time"}) {
      if (r.count(o)) return InvalidArgument(std::string("--") + o + " goes with --reps auto");
    }
    auto n = ParseInt64(reps);
    if (!n.ok() || *n < 1 || *n > kMaxReps) {
      return InvalidArgument("--reps '" + reps + "': auto, or a whole number of repetitions from " +
                             "1 to " + std::to_string(kMaxReps));
    }
    opts->repetitions = static_cast<uint32_t>(*n);
  }
  KT_ASSIGN_OR_RETURN(const int64_t warmup,
                      IntegerOption(r, "warmup", 0, kMaxReps, "a whole number of runs"));
  opts->warmup = static_cast<uint32_t>(warmup);
  return Status::Ok();
}

// --reps and --warmup, --order and --seed, --cooldown, --timeout (seconds, kept in ms) and --cpu.
Status ParseRepetitionOptions(const cxxopts::ParseResult& r, MeasureOptions* opts,
                              bool order_seed) {
  KT_RETURN_IF_ERROR(ParseRepsOption(r, opts));
  const std::string order = r["order"].as<std::string>();
  if (order == "interleaved") {
    opts->order = wire::RUN_ORDER_INTERLEAVED;
  } else if (order == "sequential") {
    opts->order = wire::RUN_ORDER_SEQUENTIAL;
  } else {
    return InvalidArgument("--order must be interleaved or sequential, not '" + order + "'");
  }
  if (opts->adaptive && opts->order == wire::RUN_ORDER_SEQUENTIAL) {
    return InvalidArgument(
        "--reps auto measures in interleaved rounds; it cannot go with --order "
        "sequential");
  }
  if (order_seed && r.count("seed")) {
    KT_ASSIGN_OR_RETURN(opts->seed, Uint64Option(r, "seed"));
  }
  KT_ASSIGN_OR_RETURN(const double cooldown,
                      RealOption(r, "cooldown", 0, 3600 * 1000, "a number of milliseconds"));
  opts->cooldown_ms = static_cast<uint64_t>(std::ceil(cooldown));
  if (r.count("max-temp")) {
    KT_ASSIGN_OR_RETURN(const double celsius, RealOption(r, "max-temp", 0, 200, "degrees Celsius",
                                                         /*above_min=*/true));
    opts->max_temp_mc = static_cast<int64_t>(std::lround(celsius * 1000));
  }
  KT_ASSIGN_OR_RETURN(const double timeout, RealOption(r, "timeout", 0, 7 * 24 * 3600,
                                                       "a number of seconds", /*above_min=*/true));
  opts->timeout_ms = static_cast<uint64_t>(std::ceil(timeout * 1000));
  KT_ASSIGN_OR_RETURN(opts->cpu,
                      IntegerOption(r, "cpu", -1, kMaxCpu, "a CPU number, or -1 for none,"));
  return Status::Ok();
}

}  // namespace

Result<int64_t> ParseReuseAge(const std::string& text) {
  static const std::vector<std::pair<char, int64_t>> kUnits = {
      {'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
  int64_t unit = 1;
  std::string number = text;
  for (const auto& [suffix, seconds] : kUnits) {
    if (!number.empty() && number.back() == suffix) {
      number.pop_back();
      unit = seconds;
      break;
    }
  }
  const Result<int64_t> n = ParseInt64(number);
  constexpr int64_t kMaxAgeS = 10 * 365 * 86400;
  if (!n.ok() || *n < 0 || *n > kMaxAgeS / unit) {
    return InvalidArgument("--reuse-age '" + text +
                           "': a whole number of seconds, or of minutes, hours or days (90s, "
                           "30m, 24h, 7d), at most 10 years");
  }
  return *n * unit;
}

Status ParseMeasureOptions(const cxxopts::ParseResult& r, MeasureOptions* opts, bool order_seed) {
  if (r.count("fresh")) {
    if (r.count("reuse-age")) return InvalidArgument("--fresh and --reuse-age are alternatives");
    opts->reuse_age_s = std::nullopt;
  } else {
    KT_ASSIGN_OR_RETURN(opts->reuse_age_s, ParseReuseAge(r["reuse-age"].as<std::string>()));
  }
  KT_RETURN_IF_ERROR(ParseEventOptions(r, opts));
  KT_RETURN_IF_ERROR(ParseSamplingOptions(r, opts));
  return ParseRepetitionOptions(r, opts, order_seed);
}

}  // namespace ktune::host
