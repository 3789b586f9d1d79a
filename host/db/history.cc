#include "host/db/history.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/strings.h"
#include "host/db/tuning_db.h"

namespace ktune::host {

const char* ChangeName(Change c) {
  switch (c) {
    case Change::kFirst:
      return "first";
    case Change::kSame:
      return "same";
    case Change::kRegression:
      return "regression";
    case Change::kImprovement:
      return "improvement";
    case Change::kNoVerdict:
      return "no verdict";
  }
  return "?";
}

Change CompareRuns(const HistoryPoint& prev, const HistoryPoint& cur) {
  if (!prev.ci_low_ns || !prev.ci_high_ns || !cur.ci_low_ns || !cur.ci_high_ns) {
    return Change::kNoVerdict;
  }
  if (*cur.ci_low_ns > *prev.ci_high_ns) return Change::kRegression;
  if (*cur.ci_high_ns < *prev.ci_low_ns) return Change::kImprovement;
  return Change::kSame;
}

namespace {

std::vector<HistoryStep> Steps(std::vector<HistoryPoint> points) {
  std::vector<HistoryStep> steps;
  for (HistoryPoint& p : points) {
    HistoryStep s{std::move(p)};
    if (!steps.empty()) {
      const HistoryPoint& prev = steps.back().point;
      s.change = CompareRuns(prev, s.point);
      s.ratio = prev.median_ns > 0 ? s.point.median_ns / prev.median_ns : 1;
    }
    steps.push_back(std::move(s));
  }
  return steps;
}

}  // namespace

History BuildHistory(std::vector<HistoryPoint> points, const std::string& config) {
  History h;
  size_t kernel = 0;
  for (const HistoryPoint& p : points) kernel += p.metric == kKernelTime;
  const std::string metric = ComparedMetric(kernel, points.size());
  std::erase_if(points, [&](const HistoryPoint& p) { return p.metric != metric; });
  std::stable_sort(points.begin(), points.end(), [](const HistoryPoint& a, const HistoryPoint& b) {
    return std::tie(a.started_ns, a.run_id) < std::tie(b.started_ns, b.run_id);
  });
  std::vector<HistoryPoint> best;  // per run, in run order
  for (const HistoryPoint& p : points) {
    if (best.empty() || best.back().run_id != p.run_id) {
      best.push_back(p);
    } else if (p.median_ns < best.back().median_ns) {
      best.back() = p;
    }
  }
  h.config = !config.empty() ? config : best.empty() ? "" : best.back().config;
  std::vector<HistoryPoint> mine;
  for (const HistoryPoint& p : points) {
    if (p.config == h.config) mine.push_back(p);
  }
  h.config_steps = Steps(std::move(mine));
  h.best_steps = Steps(std::move(best));
  return h;
}

namespace {

bool HasPairs(const Params& config, const Params& pairs) {
  for (const auto& [name, value] : pairs) {
    if (ParamValue(config, name, "\n") != value) return false;
  }
  return true;
}

}  // namespace

Result<History> TuningDb::HistoryOf(const HistoryQuery& q) {
  History h;
  h.kernel = q.kernel;
  KT_RETURN_IF_ERROR(ChooseBoard(q.kernel, q.board, &h.board, &h.board_source));
  if (h.board.empty()) return NotFound(h.board_source);
  h.shape = q.shape;
  if (!q.shape_given) {
    KT_ASSIGN_OR_RETURN(h.shape, NewestShape(q.kernel, h.board));
  }
  KT_ASSIGN_OR_RETURN(
      auto rows,
      sql_->Query("SELECT r.run_id, runs.started_ns, runs.ktune_version, runs.toolchain, "
                  "runs.spec_hash, runs.source_key, r.config, r.metric, r.median_ns, r.ci_low_ns, "
                  "r.ci_high_ns, r.n, r.shape FROM results r JOIN runs ON runs.run_id = r.run_id "
                  "WHERE r.kernel = $1 AND r.board = $2 AND r.status = 'ok' AND r.median_ns IS "
                  "NOT NULL",
                  {q.kernel, h.board}));
  std::vector<HistoryPoint> points;
  std::set<std::string> configs;  // those with the pairs asked
  for (const SqlRow& r : rows) {
    auto shape = ParseParams(SqlString(r[12]));
    auto at = shape.ok() ? ShapeDistance(*shape, h.shape) : std::nullopt;
    if (!at || *at != 0) continue;
    HistoryPoint p{SqlString(r[0]), SqlInt(r[1]),          SqlString(r[2]),        SqlString(r[3]),
                   SqlString(r[4]), SqlString(r[5]),       SqlString(r[6]),        SqlString(r[7]),
                   SqlReal(r[8]),   SqlOptionalReal(r[9]), SqlOptionalReal(r[10]), SqlInt(r[11])};
    if (auto c = ParseParams(p.config); c.ok() && !q.config.empty() && HasPairs(*c, q.config)) {
      configs.insert(p.config);
    }
    points.push_back(std::move(p));
  }
  if (points.empty()) {
    return NotFound(location() + " holds no result of " + q.kernel + " on " + h.board + " at " +
                    ShapeLabel(h.shape));
  }
  if (!q.config.empty() && configs.size() != 1) {
    const std::string asked = FormatParams(q.config);
    if (configs.empty()) {
      return NotFound("--config " + asked + ": no result of " + q.kernel + " at " +
                      ShapeLabel(h.shape) + " has it");
    }
    std::vector<std::string> some(configs.begin(), configs.end());
    if (some.size() > 3) some.resize(3);
    return InvalidArgument("--config " + asked + " matches " + std::to_string(configs.size()) +
                           " configurations (" + Join(some, ", ") +
                           (configs.size() > 3 ? ", ..." : "") + "): give every parameter");
  }
  History built = BuildHistory(std::move(points), configs.empty() ? "" : *configs.begin());
  built.kernel = h.kernel;
  built.board = h.board;
  built.board_source = h.board_source;
  built.shape = h.shape;
  return built;
}

}  // namespace ktune::host
