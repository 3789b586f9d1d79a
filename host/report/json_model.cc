#include "host/report/json_model.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "common/results.h"

namespace ktune::host {
namespace {

using Json = nlohmann::ordered_json;

// A value in `unit` as the documents carry it: nanoseconds become seconds.
double Scaled(double x, const std::string& unit) {
  return unit == "ns" ? x / 1e9 : x;
}
std::string ScaledUnit(const std::string& unit) {
  return unit == "ns" ? "s" : unit;
}

Json Number(const std::optional<double>& x, const std::string& unit = "") {
  return x ? Json(Scaled(*x, unit)) : Json(nullptr);
}

Json ParamsJson(const Params& params) {
  Json j = Json::object();
  for (const auto& [name, value] : params) j[name] = value;
  return j;
}

Json ValueJson(const ValueSummary& s) {
  Json j;
  j["unit"] = ScaledUnit(s.unit);
  j["status"] = ValueStatusName(s.status);
  j["n"] = s.counted;
  j["median"] = Number(s.median, s.unit);
  j["mean"] = Number(s.mean, s.unit);
  j["min"] = Number(s.min, s.unit);
  j["max"] = Number(s.max, s.unit);
  j["stddev"] = Number(s.stddev, s.unit);
  j["cv"] = Number(s.cv);
  j["ci95"] = s.ci ? Json{{"low", Scaled(s.ci->low, s.unit)},
                          {"high", Scaled(s.ci->high, s.unit)},
                          {"coverage", s.ci->coverage}}
                   : Json(nullptr);
  j["outlier_repetitions"] = s.outliers;
  j["coverage"] = Number(s.coverage);
  return j;
}

Json VariantJson(const VariantSummary& v) {
  Json j;
  j["index"] = v.index;
  j["name"] = v.name;
  j["elf"] = v.elf;
  j["params"] = ParamsJson(v.params);
  if (!v.shape.empty()) j["shape"] = ParamsJson(v.shape);
  j["repetitions"] = v.repetitions;
  if (!v.stopped.empty()) j["stopped"] = v.stopped;
  j["valid_repetitions"] = v.valid;
  j["failure"] = v.failure;
  j["values"] = Json::object();
  for (const ValueSummary& s : v.values) j["values"][s.name] = ValueJson(s);
  j["metrics"] = Json::object();
  for (const MetricSummary& m : v.metrics) {
    Json jm;
    jm["group"] = m.group;
    jm["value"] = Number(m.value);
    if (!m.value) jm["problem"] = m.problem;
    j["metrics"][m.name] = jm;
  }
  return j;
}

Json CorrelationJson(const std::optional<Correlation>& c) {
  return c ? Json{{"r", c->r}, {"p", c->p_value}} : Json(nullptr);
}

const std::string& NameOf(const Analysis& a, const RunReport& report, size_t ranked) {
  return report.variants[a.ranking[ranked].variant].name;
}

Json VerdictJson(const Analysis& a, const RunReport& report, const Verdict& v) {
  Json j;
  j["winner"] = NameOf(a, report, v.winner);
  j["runner_up"] = NameOf(a, report, v.runner_up);
  j["ratio"] = v.ratio;
  j["test"] = v.test ? Json{{"name", "Mann-Whitney U"},
                            {"u", v.test->u},
                            {"p", v.test->p_value},
                            {"exact", v.test->exact}}
                     : Json(nullptr);
  j["alpha"] = a.alpha;
  j["decision"] = v.unstable ? "unstable" : v.distinguishable ? "faster" : "not distinguishable";
  j["rounds"] = v.rounds ? Json{{"runner_up_slower", v.rounds->positive},
                                {"n", v.rounds->n},
                                {"p", v.rounds->p_value}}
                         : Json(nullptr);
  j["text"] = v.text;
  return j;
}

Json WhyJson(const Analysis& a, const RunReport& report, const WhyItWins& w) {
  Json j;
  j["best"] = NameOf(a, report, w.best);
  j["reference"] = NameOf(a, report, w.reference);
  j["speedup"] = w.speedup;
  j["rows"] = Json::array();
  for (const WhyRow& r : w.rows) {
    j["rows"].push_back({{"name", r.name},
                         {"metric", r.metric},
                         {"best", Number(r.best)},
                         {"reference", Number(r.reference)},
                         {"rank", r.rank ? Json(*r.rank) : Json(nullptr)},
                         {"r", Number(r.r)}});
  }
  j["sentence"] = w.sentence;
  return j;
}

}  // namespace

std::string RenderReportJson(const RunReport& report) {
  Json doc;
  doc["schema"] = "ktune-report";
  doc["version"] = kReportJsonVersion;
  doc["run_id"] = report.run_id;
  doc["best"] = report.best ? Json(report.variants[*report.best].name) : Json(nullptr);
  doc["best_by"] = report.best_by;
  if (!report.shape_best.empty()) {
    doc["best_per_shape"] = Json::array();
    for (const auto& [shape, best] : report.shape_best) {
      doc["best_per_shape"].push_back(
          {{"shape", ParamsJson(shape)},
           {"best", best ? Json(report.variants[*best].name) : Json(nullptr)}});
    }
  }
  doc["notes"] = report.notes;
  doc["variants"] = Json::array();
  for (const VariantSummary& v : report.variants) doc["variants"].push_back(VariantJson(v));
  return doc.dump(2) + "\n";
}

namespace {

// The ranking's i-th variant: its time's summary in the analysis' unit.
Json RankedJson(const Analysis& a, const RunReport& report, size_t i) {
  const RankedVariant& rv = a.ranking[i];
  const VariantSummary& v = report.variants[rv.variant];
  const ValueSummary* time = v.Find(a.time_name);
  Json j;
  j["rank"] = i + 1;
  j["name"] = v.name;
  j["label"] = VariantLabel(v);
  j["params"] = ParamsJson(v.params);
  if (!v.shape.empty()) j["shape"] = ParamsJson(v.shape);
  j["n"] = rv.n;
  j["median"] = Scaled(rv.median, a.time_unit);
  j["mean"] = time ? Number(time->mean, a.time_unit) : Json(nullptr);
  j["stddev"] = time ? Number(time->stddev, a.time_unit) : Json(nullptr);
  j["cv"] = Number(rv.cv);
  j["ci95"] = rv.ci ? Json{{"low", Scaled(rv.ci->low, a.time_unit)},
                           {"high", Scaled(rv.ci->high, a.time_unit)},
                           {"coverage", rv.ci->coverage}}
                    : Json(nullptr);
  j["outlier_repetitions"] = time ? Json(time->outliers) : Json::array();
  return j;
}

// The ranked variants' places on the roofline (host/report/roofline.h): rates in GFLOP/s and
// GB/s, intensity in FLOP/byte; null where a value is not known.
Json RooflineJson(const Analysis& a) {
  Json variants = Json::array();
  for (const Placement& p : a.roofline) {
    variants.push_back({{"variant", p.variant},
                        {"seconds", p.seconds},
                        {"gflops", Number(p.gflops)},
                        {"gbytes_per_s", Number(p.gbytes_s)},
                        {"flops_per_byte", Number(p.intensity)},
                        {"level", p.level.empty() ? Json(nullptr) : Json(p.level)},
                        {"attainable_gflops", Number(p.attainable_gflops)},
                        {"fraction_of_attainable", Number(p.fraction)},
                        {"bound", p.bound.empty() ? Json(nullptr) : Json(p.bound)}});
  }
  return {{"precision", a.precision}, {"ceilings", a.has_ceilings}, {"variants", variants}};
}

}  // namespace

std::string RenderAnalysisJson(const Analysis& a, const RunReport& report) {
  Json doc;
  doc["schema"] = "ktune-analysis";
  doc["version"] = kAnalysisJsonVersion;
  doc["run_id"] = a.run_id;
  doc["time"] = {{"name", a.time_name}, {"unit", ScaledUnit(a.time_unit)}};
  doc["ranking"] = Json::array();
  for (size_t i = 0; i < a.ranking.size(); ++i) doc["ranking"].push_back(RankedJson(a, report, i));
  doc["verdict"] = a.verdict ? VerdictJson(a, report, *a.verdict) : Json(nullptr);
  doc["drift"] = a.drift ? Json{{"change", a.drift->change},  {"u", a.drift->test.u},
                                {"p", a.drift->test.p_value}, {"variants", a.drift->variants},
                                {"early", a.drift->early},    {"late", a.drift->late}}
                         : Json(nullptr);
  doc["correlations"] = Json::array();
  for (const CounterCorrelation& c : a.correlations) {
    Json j;
    j["name"] = c.name;
    j["unit"] = ScaledUnit(c.unit);
    j["metric"] = c.metric;
    j["n"] = c.n;
    j["spearman"] = CorrelationJson(c.spearman);
    j["pearson"] = CorrelationJson(c.pearson);
    j["problem"] = c.problem.empty() ? Json(nullptr) : Json(c.problem);
    doc["correlations"].push_back(j);
  }
  doc["threshold"] = a.threshold;
  doc["effects"] = Json::array();
  for (const ParamEffect& e : a.effects) {
    Json levels = Json::array();
    for (const ParamLevel& l : e.levels) {
      levels.push_back({{"value", l.value},
                        {"median", Scaled(l.median, a.time_unit)},
                        {"variants", l.variants}});
    }
    doc["effects"].push_back({{"param", e.param}, {"spread", e.spread}, {"levels", levels}});
  }
  doc["why"] = a.why ? WhyJson(a, report, *a.why) : Json(nullptr);
  doc["roofline"] = a.roofline.empty() ? Json(nullptr) : RooflineJson(a);
  doc["roofline_note"] = a.roofline_note.empty() ? Json(nullptr) : Json(a.roofline_note);
  doc["notes"] = a.notes;
  doc["variants"] = Json::array();
  for (const VariantSummary& v : report.variants) doc["variants"].push_back(VariantJson(v));
  return doc.dump(2) + "\n";
}

}  // namespace ktune::host
