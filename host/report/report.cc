#include "host/report/report.h"

#include <algorithm>
#include <map>

#include "common/csv.h"
#include "common/events.h"
#include "common/strings.h"
#include "host/report/stats.h"
#include "host/results/results_dir.h"
#include "host/util/format.h"

namespace ktune::host {
namespace {

// A value as people read it, as analyze and the notes write it: times in the unit they read best
// in with the unit in the cell ("1.137 ms"), counts as FormatNumber gives them, and the coverage
// of a multiplexed value.
std::string Human(const ValueSummary* v) {
  if (!v) return "-";
  if (!Usable(v->status) || !v->median) {
    return "<" + std::string(ValueStatusName(v->status)) + ">";
  }
  std::string text = v->unit == "ns" || v->unit == "s" ? FormatTime(*v->median, v->unit)
                                                       : FormatNumber(*v->median);
  if (v->coverage) {
    text += " (" + FormatFixed(*v->coverage * 100, 0) + "% counted" +
            (v->status == ValueStatus::kScaled ? ", scaled)" : ")");
  }
  return text;
}

// Reads a variant's medians: events by name, and the times of kMetricTimes in seconds.
MetricSummary EvaluateMetric(const MetricDef& m, const VariantSummary& v) {
  MetricSummary out{m.name, m.group, std::nullopt, ""};
  auto median = [&](const std::string& name) -> std::optional<double> {
    const ValueSummary* s = v.Find(name);
    return s && Usable(s->status) ? s->median : std::nullopt;
  };
  auto seconds = [&](const char* name, double scale) -> std::optional<double> {
    auto x = median(name);
    return x ? std::optional<double>(*x * scale) : std::nullopt;
  };
  auto value = m.expr.Evaluate([&](const std::string& name) -> std::optional<double> {
    if (name == "kernel_time") return seconds(kKernelTime, 1);
    if (name == "wall_time") return seconds(kWallTime, 1e-9);
    if (name == "task_clock") return seconds(kTaskClock, 1e-9);
    return median(name);
  });
  if (value.ok()) {
    out.value = *value;
  } else {
    out.problem = value.status().message();
  }
  return out;
}

std::string HumanMetric(const MetricSummary& m) {
  if (!m.value) return "<" + m.problem + ">";
  return FormatNumber(*m.value);
}

// Appends `name` unless `names` has it; says whether it did.
bool AddName(std::vector<std::string>* names, const std::string& name) {
  if (std::find(names->begin(), names->end(), name) != names->end()) return false;
  names->push_back(name);
  return true;
}

using RowsByVariant = std::map<uint32_t, std::vector<const RepetitionRow*>>;

// Sets report's run id, parameter and value names (in first-seen order), and returns each value's
// unit and the rows of each variant, the sampling run's left out.
std::map<std::string, std::string> CollectRows(const std::vector<RepetitionRow>& rows,
                                               RunReport* report, RowsByVariant* by_variant) {
  std::map<std::string, std::string> units;
  for (const RepetitionRow& row : rows) {
    if (report->run_id.empty()) report->run_id = RunOfShard(row.run_id);
    if (row.sampling) continue;  // perturbed by the sampling: `--samples` reports that run
    (*by_variant)[row.variant_index].push_back(&row);
    for (const auto& [k, v] : row.params) AddName(&report->param_names, k);
    for (const MeasuredValue& v : row.values) {
      if (IsMachineState(v.name)) continue;  // the machine's, not the kernel's: report->machine
      if (AddName(&report->value_names, v.name)) units[v.name] = v.unit;
    }
  }
  return units;
}

// Counts a variant's valid repetitions and names its first failure.
void CountValid(const std::vector<const RepetitionRow*>& reps, VariantSummary* s) {
  for (const RepetitionRow* r : reps) {
    if (r->valid) {
      ++s->valid;
    } else if (s->failure.empty()) {
      const bool exited_ok = r->outcome.kind == OutcomeKind::kExited && r->outcome.code == 0;
      s->failure = exited_ok ? "NOT OK" : r->outcome.ToString();
    }
  }
}

// Sets v's status, coverage, sample (over the valid repetitions, or all when none is valid) and
// returns the repetition number of each sample value.
std::vector<uint32_t> CollectSample(const std::vector<const RepetitionRow*>& reps, bool any_valid,
                                    ValueSummary* v) {
  std::vector<uint32_t> repetitions;
  bool seen = false, scaled = false;
  for (const RepetitionRow* r : reps) {
    if (any_valid && !r->valid) continue;
    const MeasuredValue* m = r->Find(v->name);
    if (!m) continue;
    if (!seen) v->status = m->status;
    seen = true;
    if (!Usable(m->status)) continue;
    scaled = scaled || m->status == ValueStatus::kScaled;
    v->sample.push_back(m->value);
    repetitions.push_back(r->repetition);
    if (m->running_ns < m->enabled_ns) {
      const double c = static_cast<double>(m->running_ns) / static_cast<double>(m->enabled_ns);
      v->coverage = v->coverage ? std::min(*v->coverage, c) : c;
    }
  }
  if (!v->sample.empty()) v->status = scaled ? ValueStatus::kScaled : ValueStatus::kOk;
  return repetitions;
}

// One value of a variant: its sample and the statistics over it.
ValueSummary SummarizeValue(const std::vector<const RepetitionRow*>& reps, bool any_valid,
                            const std::string& name, const std::string& unit) {
  ValueSummary v;
  v.name = name;
  v.unit = unit;
  v.repetitions = CollectSample(reps, any_valid, &v);
  const std::vector<uint32_t>& repetitions = v.repetitions;
  const std::vector<double>& sample = v.sample;
  v.counted = sample.size();
  v.median = Median(sample);
  v.mean = Mean(sample);
  v.min = Min(sample);
  v.max = Max(sample);
  v.stddev = StdDev(sample);
  v.cv = CoefficientOfVariation(sample);
  v.ci = MedianConfidenceInterval(sample);
  for (size_t k : Outliers(sample)) v.outliers.push_back(repetitions[k]);
  return v;
}

VariantSummary SummarizeVariant(uint32_t index, const std::vector<const RepetitionRow*>& reps,
                                const RunReport& report,
                                const std::map<std::string, std::string>& units,
                                const std::vector<MetricDef>& metrics) {
  VariantSummary s;
  s.index = index;
  s.name = reps.front()->variant;
  s.elf = reps.front()->elf;
  s.params = reps.front()->params;
  s.shape = reps.front()->shape;
  s.first_timestamp_ns = reps.front()->timestamp_ns;
  s.repetitions = reps.size();
  CountValid(reps, &s);
  for (const std::string& name : report.value_names) {
    s.values.push_back(SummarizeValue(reps, s.valid > 0, name, units.at(name)));
  }
  for (const MetricDef& m : metrics) s.metrics.push_back(EvaluateMetric(m, s));
  return s;
}

// Whether every fully valid variant has a usable median of `key`.
bool EveryValidHas(const RunReport& report, const char* key) {
  bool all = false;
  for (const VariantSummary& v : report.variants) {
    if (!v.all_valid()) continue;
    const ValueSummary* t = v.Find(key);
    all = t && Usable(t->status) && t->median;
    if (!all) break;
  }
  return all;
}

// Ranks by the kernel's own time when every fully valid variant printed it, else by the wall
// time (khost analyze ranks by the same): sets best_by, and best, or with several shapes
// shape_names and each shape's best.
void ChooseBest(RunReport* report) {
  const std::vector<VariantSummary>& vs = report->variants;
  const bool several = std::any_of(
      vs.begin(), vs.end(), [&](const VariantSummary& v) { return v.shape != vs.front().shape; });
  if (several) {
    for (const VariantSummary& v : vs) {
      for (const auto& [name, value] : v.shape) AddName(&report->shape_names, name);
      if (std::none_of(report->shape_best.begin(), report->shape_best.end(),
                       [&](const auto& b) { return b.first == v.shape; })) {
        report->shape_best.emplace_back(v.shape, std::nullopt);
      }
    }
  }
  for (const char* key : {kKernelTime, kWallTime}) {
    if (!EveryValidHas(*report, key)) continue;
    report->best_by = key;
    auto faster = [&](size_t i, const std::optional<size_t>& than) {
      return !than || *vs[i].Find(key)->median < *vs[*than].Find(key)->median;
    };
    for (size_t i = 0; i < vs.size(); ++i) {
      if (!vs[i].all_valid()) continue;
      if (!several && faster(i, report->best)) report->best = i;
      for (auto& [shape, best] : report->shape_best) {
        if (shape == vs[i].shape && faster(i, best)) best = i;
      }
    }
    return;
  }
}

// What the numbers cannot carry: too few repetitions for an interval, outlying times.
void AddNotes(RunReport* report) {
  const std::string time = report->best_by.empty() ? kWallTime : report->best_by;
  size_t fewest = SIZE_MAX;
  std::vector<std::string> outlying;
  for (const VariantSummary& v : report->variants) {
    const ValueSummary* t = v.Find(time);
    if (!t || t->counted == 0) continue;
    fewest = std::min(fewest, t->counted);
    if (!t->outliers.empty()) {
      std::vector<std::string> reps;
      for (uint32_t r : t->outliers) reps.push_back(std::to_string(r));
      outlying.push_back(v.name + " (repetition " + Join(reps, ",") + ")");
    }
  }
  const size_t need = MinValuesForMedianInterval(0.95);
  if (fewest < need) {
    report->notes.push_back(
        "at most " + std::to_string(fewest) +
        " repetition(s) of some variant: " + "a 95% confidence interval of the median needs " +
        std::to_string(need) + " (khost run --reps " + std::to_string(need) + ")");
  }
  if (!outlying.empty()) {
    report->notes.push_back("outlying " + time +
                            " (median absolute deviation): " + Join(outlying, ", "));
  }
  if (auto noisy = NoisyTimesNote(*report, time)) report->notes.push_back(*noisy);
}

// "1 settled after 9 rounds, 14 dropped as slower after 6 rounds, 1 at the cap after 30
// rounds": the variants of each reason with their rounds (a range when they differ).
std::string DescribeRace(const Race& race) {
  std::vector<std::string> parts;
  const std::pair<StopReason, const char*> kReasons[] = {
      {StopReason::kSettled, "settled"},  {StopReason::kSlower, "dropped as slower"},
      {StopReason::kFailed, "failed"},    {StopReason::kCap, "at the cap"},
      {StopReason::kTime, "out of time"}, {StopReason::kMeasuring, "still measuring"}};
  for (const auto& [reason, words] : kReasons) {
    size_t n = 0;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (const Race::Entry& e : race.entries()) {
      if (e.reason != reason) continue;
      ++n;
      lo = std::min(lo, e.rounds);
      hi = std::max(hi, e.rounds);
    }
    if (n == 0) continue;
    parts.push_back(std::to_string(n) + " " + words + " after " + std::to_string(lo) +
                    (hi > lo ? "-" + std::to_string(hi) : "") + " rounds");
  }
  return Join(parts, ", ");
}

}  // namespace

const ValueSummary* VariantSummary::Find(const std::string& name) const {
  for (const auto& v : values) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

std::string VariantSummary::Param(const std::string& name, const std::string& missing) const {
  return ParamValue(params, name, missing);
}

RunReport BuildReport(const std::vector<RepetitionRow>& rows,
                      const std::vector<MetricDef>& metrics) {
  RunReport report;
  for (const MetricDef& m : metrics) report.metric_names.push_back(m.name);
  RowsByVariant by_variant;
  const std::map<std::string, std::string> units = CollectRows(rows, &report, &by_variant);
  for (const auto& [index, reps] : by_variant) {
    report.variants.push_back(SummarizeVariant(index, reps, report, units, metrics));
  }
  ChooseBest(&report);
  AddNotes(&report);
  report.machine = MachineStateOf(rows);
  if (const std::string change = MachineStateChange(report.machine); !change.empty()) {
    report.notes.push_back("machine: " + change);
  }
  return report;
}

std::optional<std::string> NoisyTimesNote(const RunReport& report, const std::string& time) {
  constexpr double kNoisyCv = 0.10;  // pyperf's: a standard deviation above 10% of the mean
  std::vector<std::string> noisy;
  for (const VariantSummary& v : report.variants) {
    const ValueSummary* t = v.Find(time);
    if (t && t->cv && *t->cv > kNoisyCv) {
      noisy.push_back(v.name + " (CV " + FormatPercent(*t->cv * 100) + ")");
    }
  }
  if (noisy.empty()) return std::nullopt;
  return "noisy " + time + ": " + Join(noisy, ", ") +
         ": the standard deviation is over 10% of the mean; the machine may be busy (khost agent "
         "status), or the kernel's time varies from run to run";
}

void AddRace(const LoadedRun& run, RunReport* report) {
  if (!run.meta || !run.meta->adaptive) return;
  const RunMeta& meta = *run.meta;
  uint32_t variants = 0;
  for (const RepetitionRow& row : run.rows) variants = std::max(variants, row.variant_index + 1);
  const uint32_t passes = std::max<uint32_t>(1, static_cast<uint32_t>(meta.passes.size()));
  Race race = ReplayRace(*meta.adaptive, variants, passes, run.rows).race;
  if (meta.complete) race.StopAll(StopReason::kTime);
  for (VariantSummary& v : report->variants) {
    if (v.index < variants) v.stopped = StopReasonName(race.entries()[v.index].reason);
  }
  const RacingOptions& o = *meta.adaptive;
  report->race = "--reps auto (" + std::to_string(o.min_reps) + "-" + std::to_string(o.max_reps) +
                 " rounds, target " + FormatNumber(o.target_ci * 100) + "%): " + DescribeRace(race);
  report->notes.push_back(report->race);
}

std::vector<std::string> SystemNotes(const std::optional<SystemCheck>& check) {
  std::vector<std::string> notes;
  if (!check) return notes;
  for (const std::string& w : SystemWarnings(*check)) notes.push_back("system: " + w);
  return notes;
}

Table ReportTable(const RunReport& report) {
  Table t;
  t.title = "run " + report.run_id + ": medians over valid repetitions";
  t.columns = {"", "variant"};
  t.text_columns = 2;
  for (const auto& p : report.param_names) t.columns.push_back(p);
  t.short_columns = {"", ""};
  for (const auto& p : ShortenedNames(report.param_names)) t.short_columns.push_back(p);
  for (const auto& s : report.shape_names) t.columns.push_back(s);
  t.columns.push_back("valid");
  t.short_columns.resize(t.columns.size());
  for (const auto& name : report.value_names) {
    t.columns.push_back(name);
    t.short_columns.push_back(ShortEventName(name));
  }
  for (const auto& name : report.metric_names) t.columns.push_back(name);
  for (size_t i = 0; i < report.variants.size(); ++i) {
    const VariantSummary& v = report.variants[i];
    const bool best =
        report.best == i || std::any_of(report.shape_best.begin(), report.shape_best.end(),
                                        [&](const auto& b) { return b.second == i; });
    std::vector<std::string> r = {best ? "*" : "", v.name};
    for (const auto& p : report.param_names) r.push_back(v.Param(p, "-"));
    for (const auto& s : report.shape_names) r.push_back(ParamValue(v.shape, s, "-"));
    r.push_back(std::to_string(v.valid) + "/" + std::to_string(v.repetitions) +
                (v.valid < v.repetitions ? " " + v.failure : ""));
    for (const auto& name : report.value_names) r.push_back(Human(v.Find(name)));
    for (const MetricSummary& m : v.metrics) r.push_back(HumanMetric(m));
    const RowStyle style = best           ? RowStyle::kGood
                           : v.valid == 0 ? RowStyle::kBad
                                          : RowStyle::kPlain;
    t.AddRow(std::move(r), style);
  }
  auto best_note = [&](const std::string& at, size_t i) {
    const VariantSummary& b = report.variants[i];
    t.notes.push_back("best" + at + ": " + b.name + " (" + report.best_by + " " +
                      Human(b.Find(report.best_by)) + ")");
  };
  if (!report.shape_best.empty()) {
    for (const auto& [shape, best] : report.shape_best) {
      if (best) {
        best_note(" at " + ShapeLabel(shape), *best);
      } else {
        t.notes.push_back("best at " + ShapeLabel(shape) +
                          ": none (no variant was valid in every repetition)");
      }
    }
  } else if (report.best) {
    best_note("", *report.best);
  } else {
    t.notes.push_back("best: none (no variant was valid in every repetition)");
  }
  for (const std::string& n : report.notes) t.notes.push_back("note: " + n);
  return t;
}

std::string RenderTable(const RunReport& report, bool colour, size_t width) {
  return RenderConsole(ReportTable(report), colour, width);
}

RunReport BuildRunReport(const LoadedRun& run) {
  RunReport report = BuildReport(run.rows, run.metrics);
  if (run.meta && !run.meta->run_id.empty()) report.run_id = run.meta->run_id;
  if (run.meta) {
    for (VariantSummary& v : report.variants) {
      if (v.index < run.meta->inputs.size()) v.work = run.meta->inputs[v.index].work;
    }
  }
  return report;
}

}  // namespace ktune::host
