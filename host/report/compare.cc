#include "host/report/compare.h"

#include <cmath>

#include "host/report/analysis.h"
#include "host/util/format.h"

namespace ktune::host {
namespace {

const VariantSummary* ByName(const RunReport& r, const std::string& name) {
  for (const VariantSummary& v : r.variants) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

const ValueSummary* TimeOf(const VariantSummary* v, const std::string& time) {
  if (!v || !v->all_valid()) return nullptr;
  const ValueSummary* t = v->Find(time);
  return t && Usable(t->status) && t->median ? t : nullptr;
}

// kernel-time when every variant valid in both runs has it in both, else wall-time; "" when
// neither.
std::string ChooseTime(const RunReport& a, const RunReport& b) {
  for (const char* time : {kKernelTime, kWallTime}) {
    bool any = false, all = true;
    for (const VariantSummary& va : a.variants) {
      const VariantSummary* vb = ByName(b, va.name);
      if (!va.all_valid() || !vb || !vb->all_valid()) continue;
      any = true;
      all = all && TimeOf(&va, time) && TimeOf(vb, time);
    }
    if (any && all) return time;
  }
  return "";
}

// A's variant names in order, then those only B has.
std::vector<std::string> VariantNames(const RunReport& a, const RunReport& b) {
  std::vector<std::string> names;
  for (const VariantSummary& v : a.variants) names.push_back(v.name);
  for (const VariantSummary& v : b.variants) {
    if (!ByName(a, v.name)) names.push_back(v.name);
  }
  return names;
}

// A variant measured validly in both: the ratio B / A, the test, and the verdict it gives.
void CompareTimes(const ValueSummary& ta, const ValueSummary& tb, double alpha,
                  VariantComparison* vc) {
  if (*vc->a > 0) vc->ratio = *vc->b / *vc->a;
  vc->test = MannWhitneyU(ta.sample, tb.sample);
  const bool differ = vc->test && vc->test->p_value < alpha;
  if (differ && vc->ratio && *vc->ratio < 1) {
    vc->verdict = "faster";
  } else if (differ && vc->ratio && *vc->ratio > 1) {
    vc->verdict = "slower";
  } else {
    vc->verdict = "same";
  }
}

// One variant of either run against the other; sets *unit to A's time unit when A has the time.
VariantComparison CompareVariant(const RunReport& a, const RunReport& b, const std::string& name,
                                 const std::string& time, double alpha, std::string* unit) {
  VariantComparison vc;
  vc.name = name;
  const VariantSummary* va = ByName(a, name);
  const VariantSummary* vb = ByName(b, name);
  const ValueSummary* ta = TimeOf(va, time);
  const ValueSummary* tb = TimeOf(vb, time);
  if (ta) {
    vc.a = ta->median;
    vc.na = ta->counted;
    *unit = ta->unit;
  }
  if (tb) {
    vc.b = tb->median;
    vc.nb = tb->counted;
  }
  if (!va) {
    vc.verdict = "only in B";
  } else if (!vb) {
    vc.verdict = "only in A";
  } else if (!ta) {
    vc.verdict = "invalid in A";
  } else if (!tb) {
    vc.verdict = "invalid in B";
  } else {
    CompareTimes(*ta, *tb, alpha, &vc);
  }
  return vc;
}

// Counts the compared variants' verdicts into c, and sets c->geomean of their positive ratios.
void Summarize(RunComparison* c) {
  double log_sum = 0;
  size_t logs = 0;
  for (const VariantComparison& vc : c->variants) {
    if (vc.verdict == "faster") ++c->faster;
    if (vc.verdict == "slower") ++c->slower;
    if (vc.verdict == "same") ++c->same;
    if (vc.ratio && *vc.ratio > 0) {
      log_sum += std::log(*vc.ratio);
      ++logs;
    }
  }
  if (logs) c->geomean = std::exp(log_sum / static_cast<double>(logs));
}

}  // namespace

Result<RunComparison> CompareRuns(const RunReport& a, const RunReport& b, double alpha) {
  RunComparison c;
  c.run_a = a.run_id;
  c.run_b = b.run_id;
  c.alpha = alpha;
  c.time_name = ChooseTime(a, b);
  if (c.time_name.empty()) {
    return NotFound("runs " + a.run_id + " and " + b.run_id +
                    " have no variant valid in both, with a time: nothing to compare");
  }
  for (const std::string& name : VariantNames(a, b)) {
    c.variants.push_back(CompareVariant(a, b, name, c.time_name, alpha, &c.time_unit));
  }
  Summarize(&c);
  return c;
}

Table ComparisonTable(const RunComparison& c) {
  Table t;
  t.title = "run B " + c.run_b + " against run A " + c.run_a + ": median " + c.time_name +
            ", ratio B / A (below 1: B is faster), Mann-Whitney U over the repetitions";
  t.columns = {"variant", "A", "B", "B / A", "p", "n A", "n B", "verdict"};
  t.trailing_text_columns = 1;
  for (const VariantComparison& v : c.variants) {
    const RowStyle style = v.verdict == "faster"   ? RowStyle::kGood
                           : v.verdict == "slower" ? RowStyle::kBad
                           : v.verdict == "same"   ? RowStyle::kPlain
                                                   : RowStyle::kDim;
    t.AddRow(
        {v.name, v.a ? FormatTime(*v.a, c.time_unit) : "-",
         v.b ? FormatTime(*v.b, c.time_unit) : "-", v.ratio ? FormatWith("%.3f", *v.ratio) : "-",
         v.test ? FormatWith("%.4f", v.test->p_value) : "-", std::to_string(v.na),
         std::to_string(v.nb), v.verdict},
        style);
  }
  if (c.geomean) {
    t.notes.push_back("geometric mean of B / A: " + FormatWith("%.3f", *c.geomean) + " (" +
                      std::to_string(c.faster) + " faster, " + std::to_string(c.slower) +
                      " slower, " + std::to_string(c.same) + " not distinguishable at p < " +
                      FormatWith("%g", c.alpha) + ")");
  }
  return t;
}

}  // namespace ktune::host
