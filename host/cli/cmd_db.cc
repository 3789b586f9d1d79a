// khost db: what the tuning database holds (show, the default), and import, which adds the runs
// of a root's kernels that it lacks (host/db/db_import.h).
#include "host/cli/cmd_db.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/db/db_import.h"
#include "host/db/tuning_db.h"
#include "host/report/table.h"

namespace ktune::host {

const std::vector<std::string>& DbActions() {
  static const std::vector<std::string> kActions = {"show", "import"};
  return kActions;
}

cxxopts::Options DbCliOptions() {
  cxxopts::Options o("khost db",
                     "The tuning database: what it holds (show), or add the runs under ROOT "
                     "(import ROOT).");
  o.add_options(kArgumentsGroup)("action", Join(DbActions(), " or "), cxxopts::value<std::string>(),
                                 "[show|import]")("root",
                                                  "import: the directory holding <kernel>/run/",
                                                  cxxopts::value<std::string>(), "[ROOT]");
  o.add_options()("format", "show: table or json",
                  cxxopts::value<std::string>()->default_value("table"));
  AddDbOption(o);
  return o;
}

Result<DbRequest> ParseDbArgs(const Args& args) {
  cxxopts::Options o = DbCliOptions();
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, args, 0));
  DbRequest req;
  if (r.count("action")) req.action = r["action"].as<std::string>();
  KT_RETURN_IF_ERROR(CheckAction(req.action, DbActions()));
  req.db = r["db"].as<std::string>();
  if (req.db == "none") return InvalidArgument("--db none: khost db needs a database");
  const std::string format = r["format"].as<std::string>();
  if (format != "table" && format != "json") {
    return InvalidArgument("--format '" + format + "': table or json");
  }
  req.json = format == "json";
  if (req.action == "import") {
    if (!r.count("root")) return InvalidArgument("'khost db import' needs ROOT");
    if (r.count("format")) return InvalidArgument("--format goes with 'khost db show'");
    req.root = r["root"].as<std::string>();
  } else if (r.count("root")) {
    return InvalidArgument("unexpected argument '" + r["root"].as<std::string>() + "'");
  }
  return req;
}

namespace {

void PrintContents(const DbContents& c, const std::string& source, bool json) {
  if (json) {
    nlohmann::ordered_json j = {{"schema", 1},
                                {"backend", c.backend},
                                {"location", c.location},
                                {"schema_version", c.schema_version},
                                {"runs", c.runs},
                                {"measurements", c.measurements},
                                {"results", c.results}};
    j["kernels"] = nlohmann::ordered_json::array();
    for (const DbContents::Kernel& k : c.kernels) {
      j["kernels"].push_back({{"kernel", k.name},
                              {"runs", k.runs},
                              {"configs", k.configs},
                              {"boards", k.boards},
                              {"shapes", k.shapes},
                              {"newest_run_ns", k.last_ns}});
    }
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << "database: " << c.location << " (" << c.backend << ", schema version "
            << c.schema_version << "; " << source << ")\n"
            << c.runs << " runs, " << c.measurements << " measured values, " << c.results
            << " variant results\n";
  if (c.kernels.empty()) return;
  Table t;
  t.columns = {"kernel", "runs", "configurations", "boards", "shapes", "newest run"};
  for (const DbContents::Kernel& k : c.kernels) {
    t.AddRow({k.name, std::to_string(k.runs), std::to_string(k.configs), std::to_string(k.boards),
              std::to_string(k.shapes), UtcText(k.last_ns / 1'000'000, false)});
  }
  std::cout << "\n" << RenderConsole(t);
}

Status ExecuteDb(const DbRequest& req) {
  std::string source;
  // Showing a database that is not there is an error; import makes one.
  KT_ASSIGN_OR_RETURN(std::unique_ptr<TuningDb> db,
                      OpenDbFor(req.db, req.action == "import", &source));
  if (req.action == "show") {
    KT_ASSIGN_OR_RETURN(const DbContents contents, db->Contents());
    PrintContents(contents, source, req.json);
    return Status::Ok();
  }
  KT_ASSIGN_OR_RETURN(const ImportSummary s, ImportRoot(*db, req.root, ThisHost()));
  for (const std::string& skipped : s.skipped) {
    std::cerr << "khost db import: skipped " << skipped << "\n";
  }
  std::cout << "khost db import: " << s.runs << " runs of " << s.kernels << " kernels into "
            << db->location() << ": " << s.lines_new << " values new, " << s.lines_held
            << " held already\n";
  if (!s.skipped.empty()) {
    return IoError(std::to_string(s.skipped.size()) + " runs could not be imported (above)");
  }
  return Status::Ok();
}

}  // namespace

int DbMain(const Args& args) {
  return CommandMain("db", DbCliOptions, ParseDbArgs, ExecuteDb, args);
}

}  // namespace ktune::host
