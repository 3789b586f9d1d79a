// khost best: the best configuration of a kernel from the tuning database, without a run, with
// its evidence (median, interval, repetitions, run, age) and which fallback answered: the board
// and shape asked, the same board at the nearest shape, another board (host/db/tuning_db.h).
#include "host/cli/cmd_best.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/db/tuning_db.h"
#include "host/report/table.h"
#include "host/results/shape_sets.h"
#include "host/tune/shapes.h"
#include "host/util/format.h"

namespace ktune::host {

cxxopts::Options BestCliOptions() {
  cxxopts::Options o("khost best",
                     "The best configuration of a kernel that the tuning database has measured, "
                     "with its evidence; no run.");
  o.add_options(kArgumentsGroup)("kernel", "kernel name", cxxopts::value<std::string>(),
                                 "<kernel>");
  o.add_options()(
      "board",
      "the board: an agent's name or a CPU fingerprint (else the board of the kernel's newest "
      "run)",
      cxxopts::value<std::string>()->default_value(""))(
      "shape", "the problem shape, 'M=64 N=64 K=64' (else the newest run's)",
      cxxopts::value<std::string>()->default_value(""))(
      "top", "list the N fastest configurations",
      cxxopts::value<std::string>()->default_value("1"))(
      "format", "table or json", cxxopts::value<std::string>()->default_value("table"));
  AddDbOption(o);
  return o;
}

Result<BestRequest> ParseBestArgs(const Args& args) {
  cxxopts::Options o = BestCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args));
  BestRequest req;
  req.kernel = r["kernel"].as<std::string>();
  req.board = r["board"].as<std::string>();
  req.db = r["db"].as<std::string>();
  if (req.db == "none") return InvalidArgument("--db none: khost best answers from a database");
  const std::string shape = r["shape"].as<std::string>();
  auto set = ParseShapeSet(shape);
  if (!set.ok()) return set.status().WithContext("--shape '" + shape + "'");
  req.shape = ShapeParams(*set);
  KT_ASSIGN_OR_RETURN(const int64_t top,
                      IntegerOption(r, "top", 1, 1000, "a number of configurations"));
  req.top = static_cast<size_t>(top);
  const std::string format = r["format"].as<std::string>();
  if (format != "table" && format != "json") {
    return InvalidArgument("--format '" + format + "': table or json");
  }
  req.json = format == "json";
  return req;
}

namespace {

// "3 h", "2 d", "45 s": how long ago `ns` (Unix epoch) was.
std::string Age(int64_t ns, int64_t now_ns) {
  const int64_t s = std::max<int64_t>(0, (now_ns - ns) / 1'000'000'000);
  if (s < 120) return std::to_string(s) + " s";
  if (s < 7200) return std::to_string(s / 60) + " min";
  if (s < 2 * 86400) return std::to_string(s / 3600) + " h";
  return std::to_string(s / 86400) + " d";
}

nlohmann::ordered_json AnswerJson(const BestAnswer& a, int64_t now_ns) {
  nlohmann::ordered_json j = {{"schema", 1},
                              {"fallback", a.fallback},
                              {"board", a.board},
                              {"board_source", a.board_source},
                              {"shape", FormatParams(a.shape)}};
  j["entries"] = nlohmann::ordered_json::array();
  for (const BestEntry& e : a.entries) {
    nlohmann::ordered_json x = {{"config", e.config},
                                {"shape", e.shape},
                                {"board", e.board},
                                {"cpu", e.cpu},
                                {"run_id", e.run_id},
                                {"metric", e.metric},
                                {"median_ns", e.median_ns},
                                {"n", e.n},
                                {"measured_ns", e.measured_ns},
                                {"age_s", (now_ns - e.measured_ns) / 1e9}};
    x["ci_low_ns"] = e.ci_low_ns ? nlohmann::ordered_json(*e.ci_low_ns) : nullptr;
    x["ci_high_ns"] = e.ci_high_ns ? nlohmann::ordered_json(*e.ci_high_ns) : nullptr;
    j["entries"].push_back(std::move(x));
  }
  return j;
}

void PrintAnswer(const std::string& kernel, const BestAnswer& a, int64_t now_ns) {
  const BestEntry& first = a.entries.front();
  std::cout << "best " << kernel << " at " << ShapeLabel(a.shape) << " on " << first.cpu << " ("
            << first.board << "): " << a.fallback << "\n";
  std::cout << "board: " << a.board_source << "\n";
  Table t;
  t.columns = {"configuration", "median", "95% CI", "n", "metric", "run", "age"};
  for (const BestEntry& e : a.entries) {
    t.AddRow({e.config, FormatTime(e.median_ns, "ns"),
              FormatMedianInterval(e.ci_low_ns, e.ci_high_ns), std::to_string(e.n), e.metric,
              e.run_id, Age(e.measured_ns, now_ns)});
  }
  std::cout << RenderConsole(t);
}

Status ExecuteBest(const BestRequest& req) {
  KT_ASSIGN_OR_RETURN(std::unique_ptr<TuningDb> db, OpenDbFor(req.db, /*create=*/false));
  KT_ASSIGN_OR_RETURN(const BestAnswer a, db->Best({.kernel = req.kernel,
                                                    .board = req.board,
                                                    .shape = req.shape,
                                                    .shape_given = !req.shape.empty(),
                                                    .top = req.top}));
  const int64_t now_ns = UnixNowNs();
  if (req.json) {
    std::cout << AnswerJson(a, now_ns).dump(2) << "\n";
  } else {
    PrintAnswer(req.kernel, a, now_ns);
  }
  return Status::Ok();
}

}  // namespace

int BestMain(const Args& args) {
  return CommandMain("best", BestCliOptions, ParseBestArgs, ExecuteBest, args);
}

}  // namespace ktune::host
