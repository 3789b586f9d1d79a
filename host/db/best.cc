// khost best's query: the fastest configuration of a kernel that the database has evidence for,
// with the fallbacks of Kernel Launcher's wisdom files: the board and shape asked; the same board
// at the nearest shape measured; another board at the shape; another board at its nearest shape.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/strings.h"
#include "host/db/tuning_db.h"

namespace ktune::host {

std::optional<double> ShapeDistance(const Params& measured, const Params& asked) {
  double d = 0;
  for (const auto& [name, want] : asked) {
    const std::string have = ParamValue(measured, name, "");
    if (have.empty()) return std::nullopt;
    auto u = ParseDouble(have), v = ParseDouble(want);
    if (!u.ok() || !v.ok() || !(*u > 0) || !(*v > 0)) {
      if (have != want) return std::nullopt;
      continue;
    }
    d += std::fabs(std::log2(*u) - std::log2(*v));
  }
  return d;
}

size_t NearestShape(const std::vector<MeasuredShape>& measured, const Params& asked) {
  size_t best = measured.size();
  double best_distance = 0;
  for (size_t i = 0; i < measured.size(); ++i) {
    const std::optional<double> d = ShapeDistance(measured[i].shape, asked);
    if (!d) continue;
    if (best == measured.size() || *d < best_distance ||
        (*d == best_distance && measured[i].configs > measured[best].configs)) {
      best = i;
      best_distance = *d;
    }
  }
  return best;
}

std::vector<BestEntry> NewestPerConfig(std::vector<BestEntry> entries) {
  std::map<std::string, BestEntry> newest;
  for (BestEntry& e : entries) {
    auto it = newest.find(e.config);
    if (it == newest.end() || e.measured_ns > it->second.measured_ns)
      newest[e.config] = std::move(e);
  }
  size_t kernel = 0;
  for (const auto& [config, e] : newest) kernel += e.metric == kKernelTime;
  const std::string metric = ComparedMetric(kernel, newest.size());
  std::vector<BestEntry> out;
  for (auto& [config, e] : newest) {
    if (e.metric == metric) out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(), [](const BestEntry& x, const BestEntry& y) {
    return x.median_ns < y.median_ns;
  });
  return out;
}

namespace {

BestEntry EntryOf(const SqlRow& r) {
  BestEntry e;
  e.config = SqlString(r[0]);
  e.shape = SqlString(r[1]);
  e.board = SqlString(r[2]);
  e.run_id = SqlString(r[3]);
  e.metric = SqlString(r[4]);
  e.median_ns = SqlReal(r[5]);
  e.ci_low_ns = SqlOptionalReal(r[6]);
  e.ci_high_ns = SqlOptionalReal(r[7]);
  e.n = SqlInt(r[8]);
  e.measured_ns = SqlInt(r[9]);
  e.cpu = SqlString(r[10]);
  return e;
}

constexpr const char* kSelectResults =
    "SELECT r.config, r.shape, r.board, r.run_id, r.metric, r.median_ns, r.ci_low_ns, "
    "r.ci_high_ns, r.n, r.measured_ns, runs.cpu FROM results r JOIN runs ON runs.run_id = "
    "r.run_id WHERE r.kernel = $1 AND r.status = 'ok' AND r.median_ns IS NOT NULL";

// Of `entries` (one board's, or every other board's), those at `shape` or, when none is, at the
// shape NearestShape chooses among those they were measured at; `nearest` says which it was.
std::vector<BestEntry> AtShape(const std::vector<BestEntry>& entries, const Params& shape,
                               bool* nearest, Params* answered) {
  std::map<std::string, std::set<std::string>> configs;  // shape -> configurations measured
  for (const BestEntry& e : entries) configs[e.shape].insert(e.config);
  std::vector<MeasuredShape> measured;
  std::vector<std::string> texts;
  for (const auto& [text, c] : configs) {
    auto p = ParseParams(text);
    if (!p.ok()) continue;
    measured.push_back({std::move(*p), c.size()});
    texts.push_back(text);
  }
  const size_t chosen = NearestShape(measured, shape);
  if (chosen == measured.size()) return {};
  *nearest = *ShapeDistance(measured[chosen].shape, shape) > 0;
  *answered = measured[chosen].shape;
  std::vector<BestEntry> out;
  for (const BestEntry& e : entries) {
    if (e.shape == texts[chosen]) out.push_back(e);
  }
  return out;
}

}  // namespace

Status TuningDb::ChooseBoard(const std::string& kernel, const std::string& board,
                             std::string* chosen, std::string* source) {
  KT_ASSIGN_OR_RETURN(auto newest,
                      sql_->Query("SELECT board, agent, run_id FROM runs WHERE kernel = $1 AND "
                                  "board <> '' ORDER BY started_ns DESC LIMIT 1",
                                  {kernel}));
  if (newest.empty()) {
    return NotFound(location() + " holds no run of " + kernel +
                    " (khost run records each run; khost db import ROOT adds runs measured "
                    "before)");
  }
  if (board.empty()) {
    *chosen = SqlString(newest[0][0]);
    *source = "the board of its newest run, " + SqlString(newest[0][2]) + " on " +
              SqlString(newest[0][1]);
    return Status::Ok();
  }
  KT_ASSIGN_OR_RETURN(auto boards, sql_->Query("SELECT DISTINCT board FROM runs WHERE kernel = "
                                               "$1 AND (board = $2 OR agent = $2)",
                                               {kernel, board}));
  *chosen = boards.empty() ? "" : SqlString(boards[0][0]);
  *source =
      boards.empty() ? "--board " + board + ", which has no run of " + kernel : "--board " + board;
  return Status::Ok();
}

Result<Params> TuningDb::NewestShape(const std::string& kernel, const std::string& board) {
  KT_ASSIGN_OR_RETURN(auto s, sql_->Query("SELECT shape FROM results WHERE kernel = $1 AND "
                                          "board = $2 ORDER BY measured_ns DESC LIMIT 1",
                                          {kernel, board}));
  if (s.empty()) return Params{};
  return ParseParams(SqlString(s[0][0]));
}

Result<BestAnswer> TuningDb::Best(const BestQuery& q) {
  BestAnswer a;
  KT_RETURN_IF_ERROR(ChooseBoard(q.kernel, q.board, &a.board, &a.board_source));
  Params shape = q.shape;
  if (!q.shape_given && !a.board.empty()) {
    KT_ASSIGN_OR_RETURN(shape, NewestShape(q.kernel, a.board));
  }
  std::vector<BestEntry> mine, others;
  KT_ASSIGN_OR_RETURN(auto rows, sql_->Query(kSelectResults, {q.kernel}));
  for (const SqlRow& r : rows) {
    BestEntry e = EntryOf(r);
    (e.board == a.board ? mine : others).push_back(std::move(e));
  }
  a.results_read = static_cast<int64_t>(rows.size());
  bool nearest = false;
  std::vector<BestEntry> at = AtShape(mine, shape, &nearest, &a.shape);
  a.fallback = nearest ? "same board, nearest shape" : "same board and shape";
  if (at.empty()) {
    at = AtShape(others, shape, &nearest, &a.shape);
    a.fallback = nearest ? "another board, nearest shape" : "another board, same shape";
    // One board answers: the one measured most recently at that shape.
    auto newest_entry = std::max_element(at.begin(), at.end(), [](const auto& x, const auto& y) {
      return x.measured_ns < y.measured_ns;
    });
    if (newest_entry != at.end()) {
      const std::string board = newest_entry->board;
      std::erase_if(at, [&](const BestEntry& e) { return e.board != board; });
    }
  }
  if (at.empty()) {
    return NotFound(location() + " holds no successful measurement of " + q.kernel +
                    " at a shape comparable to " + ShapeLabel(shape));
  }
  a.entries = NewestPerConfig(std::move(at));
  if (a.entries.size() > q.top) a.entries.resize(q.top);
  return a;
}

}  // namespace ktune::host
