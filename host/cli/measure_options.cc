#include "host/cli/measure_options.h"

#include <cmath>
#include <set>

#include "common/racing.h"
#include "common/strings.h"
#include "host/events/event_groups.h"

namespace ktune::host {

void AddMeasureOptions(cxxopts::Options& o, bool order_seed) {
  o.add_options()("events",
                  "comma-separated groups and events (perf's syntax; default: the default group)",
                  cxxopts::value<std::string>()->default_value(""))(
      "reps",
      "measured repetitions per variant, or auto: rounds until each variant is settled or "
      "clearly slower than the best",
      cxxopts::value<std::string>()->default_value("5"))(
      "min-reps", "with --reps auto: rounds before a variant may stop (at least 4)",
      cxxopts::value<int64_t>()->default_value("4"))(
      "max-reps", "with --reps auto: rounds at most",
      cxxopts::value<int64_t>()->default_value("30"))(
      "target-ci",
      "with --reps auto: the best variant is settled when the 95% interval of its median is "
      "within PCT percent of it",
      cxxopts::value<double>()->default_value("2"))(
      "max-time", "with --reps auto: no new round after this many seconds of measuring",
      cxxopts::value<double>())("cooldown",
                                "idle this many milliseconds before each repetition but the first",
                                cxxopts::value<double>()->default_value("0"))(
      "max-temp",
      "before each repetition, wait (up to 5 minutes) until the agent's hottest thermal zone is "
      "below this many degrees Celsius",
      cxxopts::value<double>())("warmup", "unmeasured runs before them",
                                cxxopts::value<int64_t>()->default_value("1"))(
      "order",
      "interleaved: rounds, each running every variant once in a shuffled order; sequential: "
      "every repetition of one variant, then the next",
      cxxopts::value<std::string>()->default_value("interleaved"))(
      "timeout", "seconds before a run is killed", cxxopts::value<double>()->default_value("60"))(
      "cpu", "pin runs to this CPU (-1: no pinning)", cxxopts::value<int>()->default_value("-1"))(
      "cpu-model",
      "event table to use instead of the agent's detected one: a table (spacemit/x60) or a "
      "RISC-V core id from /proc/cpuinfo (0x710-0x8000000058000001-0x0)",
      cxxopts::value<std::string>()->default_value(""))(
      "multiplex",
      "count all events at once and scale them as perf does, instead of running "
      "each variant once per pass of events that fit the counters")(
      "record", "sample these events in one more run per variant (perf record's -e)",
      cxxopts::value<std::string>()->default_value(""))(
      "period", "a sample every N events", cxxopts::value<uint64_t>()->default_value("0"))(
      "freq", "about N samples per second (default 4001)",
      cxxopts::value<uint32_t>()->default_value("0"))("callchain",
                                                      "record user callchains with the samples");
  if (order_seed) {
    o.add_options()("seed",
                    "shuffles the interleaved rounds (default: drawn at random, kept in the run)",
                    cxxopts::value<std::string>());
  }
}

const std::vector<std::string>& MeasureOptionNames(bool order_seed) {
  static const std::vector<std::string> names = {
      "events",    "reps",      "min-reps", "max-reps", "target-ci", "max-time",
      "cooldown",  "max-temp",  "warmup",   "order",    "timeout",   "cpu",
      "cpu-model", "multiplex", "record",   "period",   "freq",      "callchain"};
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
  opts->sample_period = r["period"].as<uint64_t>();
  opts->sample_freq = r["freq"].as<uint32_t>();
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
  const int64_t min_reps = r["min-reps"].as<int64_t>(), max_reps = r["max-reps"].as<int64_t>();
  const double target_pct = r["target-ci"].as<double>();
  if (min_reps < kMinRacingReps) {
    return InvalidArgument(
        "--min-reps must be at least 4: fewer values cannot tell a variant slower at p < 0.05");
  }
  if (max_reps < min_reps || max_reps > 100000) {
    return InvalidArgument("--max-reps must be between --min-reps (" + std::to_string(min_reps) +
                           ") and 100000");
  }
  if (!(target_pct > 0 && target_pct < 100)) {
    return InvalidArgument("--target-ci must be a percentage above 0 and below 100");
  }
  opts->adaptive = RacingOptions{static_cast<uint32_t>(min_reps), static_cast<uint32_t>(max_reps),
                                 target_pct / 100};
  opts->repetitions = static_cast<uint32_t>(max_reps);
  if (r.count("max-time")) {
    const double seconds = r["max-time"].as<double>();
    if (!(seconds > 0) || seconds > 30 * 24 * 3600) {
      return InvalidArgument("--max-time must be a positive number of seconds");
    }
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
    if (!n.ok() || *n < 1 || *n > 100000) {
      return InvalidArgument("--reps must be auto or between 1 and 100000, not '" + reps + "'");
    }
    opts->repetitions = static_cast<uint32_t>(*n);
  }
  const int64_t warmup = r["warmup"].as<int64_t>();
  if (warmup < 0 || warmup > 100000) {
    return InvalidArgument("--warmup must be between 0 and 100000");
  }
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
    const std::string text = r["seed"].as<std::string>();
    auto seed = ParseUint64(text);
    if (!seed.ok()) {
      return InvalidArgument("--seed must be a whole number from 0 to 18446744073709551615, not '" +
                             text + "'");
    }
    opts->seed = *seed;
  }
  const double cooldown = r["cooldown"].as<double>();
  if (!(cooldown >= 0) || cooldown > 3600 * 1000) {
    return InvalidArgument("--cooldown must be a number of milliseconds, 0 or more");
  }
  opts->cooldown_ms = static_cast<uint64_t>(std::ceil(cooldown));
  if (r.count("max-temp")) {
    const double celsius = r["max-temp"].as<double>();
    if (!(celsius > 0 && celsius < 200)) {
      return InvalidArgument("--max-temp must be a temperature in degrees Celsius, above 0");
    }
    opts->max_temp_mc = static_cast<int64_t>(std::lround(celsius * 1000));
  }
  const double timeout = r["timeout"].as<double>();
  if (!(timeout > 0) || timeout > 7 * 24 * 3600) {
    return InvalidArgument("--timeout must be a positive number of seconds");
  }
  opts->timeout_ms = static_cast<uint64_t>(std::ceil(timeout * 1000));
  opts->cpu = r["cpu"].as<int>();
  if (opts->cpu < -1) return InvalidArgument("--cpu must be a CPU number, or -1");
  return Status::Ok();
}

}  // namespace

Status ParseMeasureOptions(const cxxopts::ParseResult& r, MeasureOptions* opts, bool order_seed) {
  KT_RETURN_IF_ERROR(ParseEventOptions(r, opts));
  KT_RETURN_IF_ERROR(ParseSamplingOptions(r, opts));
  return ParseRepetitionOptions(r, opts, order_seed);
}

}  // namespace ktune::host
