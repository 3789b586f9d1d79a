#include "host/search/search_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "host/results/results_dir.h"

namespace ktune::host {

namespace fs = std::filesystem;

std::string SearchesDir(const std::string& kernel_run_dir) {
  return kernel_run_dir + "/searches";
}

std::string SearchPath(const std::string& kernel_run_dir, const std::string& search_id) {
  return SearchesDir(kernel_run_dir) + "/" + search_id + ".csv";
}

namespace {

std::string MetaPath(const std::string& search_path) {
  return search_path.substr(0, search_path.size() - 4) + ".json";
}

// The "configs" of `j`, lists of whole numbers; `bad` when they are not.
Result<std::vector<std::vector<int64_t>>> ConfigsOf(const nlohmann::json& j,
                                                    const std::string& bad) {
  if (!j.contains("configs") || !j["configs"].is_array()) return InvalidArgument(bad);
  std::vector<std::vector<int64_t>> configs;
  for (const nlohmann::json& c : j["configs"]) {
    if (!c.is_array()) return InvalidArgument(bad);
    std::vector<int64_t> config;
    for (const nlohmann::json& v : c) {
      if (!v.is_number_integer()) return InvalidArgument(bad);
      config.push_back(v.get<int64_t>());
    }
    configs.push_back(std::move(config));
  }
  return configs;
}

}  // namespace

Status WriteSearchMeta(const std::string& search_path, const SearchMeta& meta) {
  nlohmann::ordered_json j = {{"argv", meta.argv}, {"elapsed_s", meta.elapsed_s}};
  if (meta.pending) {
    j["pending"] = {{"run", meta.pending->run_id}, {"configs", meta.pending->configs}};
  }
  // A warm start without configurations still says why there are none.
  if (!meta.warm_start.empty() || !meta.warm_about.empty()) {
    j["warm_start"] = {
        {"configs", meta.warm_start}, {"about", meta.warm_about}, {"here", meta.warm_here}};
  }
  return WriteFileAtomic(MetaPath(search_path), j.dump(2) + "\n");
}

Result<SearchMeta> ReadSearchMeta(const std::string& search_path) {
  const std::string path = MetaPath(search_path);
  KT_ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  SearchMeta meta;
  if (!j.is_object() || !j.contains("argv") || !j["argv"].is_array() || !j.contains("elapsed_s") ||
      !j["elapsed_s"].is_number()) {
    return InvalidArgument(path +
                           ": not a search's metadata ({\"argv\": [...], \"elapsed_s\": S})");
  }
  for (const nlohmann::json& a : j["argv"]) {
    if (!a.is_string()) return InvalidArgument(path + ": argv holds a non-string");
    meta.argv.push_back(a.get<std::string>());
  }
  meta.elapsed_s = j["elapsed_s"].get<double>();
  if (j.contains("pending")) {
    const nlohmann::json& b = j["pending"];
    const std::string bad = path + ": \"pending\" is not {\"run\": ID, \"configs\": [[...], ...]}";
    if (!b.is_object() || !b.contains("run") || !b["run"].is_string()) return InvalidArgument(bad);
    SearchMeta::Batch batch;
    batch.run_id = b["run"].get<std::string>();
    KT_ASSIGN_OR_RETURN(batch.configs, ConfigsOf(b, bad));
    meta.pending = std::move(batch);
  }
  if (j.contains("warm_start")) {
    const nlohmann::json& w = j["warm_start"];
    const std::string bad =
        path + ": \"warm_start\" is not {\"configs\": [[...], ...], \"about\": TEXT, \"here\": N}";
    if (!w.is_object() || !w.contains("about") || !w["about"].is_string() ||
        (w.contains("here") && !w["here"].is_number_unsigned())) {
      return InvalidArgument(bad);
    }
    KT_ASSIGN_OR_RETURN(meta.warm_start, ConfigsOf(w, bad));
    meta.warm_about = w["about"].get<std::string>();
    meta.warm_here = w.contains("here") ? w["here"].get<size_t>() : meta.warm_start.size();
  }
  return meta;
}

Result<std::string> FindSearchFile(const std::string& kernel_run_dir,
                                   const std::string& search_id) {
  const std::string dir = SearchesDir(kernel_run_dir);
  return FindIdFile(dir, search_id, "search",
                    "no search in " + dir + " (khost tune --strategy first)");
}

Result<SearchJournal> SearchJournal::Create(const std::string& path,
                                            const std::vector<std::string>& comments,
                                            const std::vector<std::string>& names) {
  KT_RETURN_IF_ERROR(MakeDirs(fs::path(path).parent_path().string()));
  KT_ASSIGN_OR_RETURN(ScopedFd fd, OpenFile(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND));
  const std::string header = FormatEvaluationsHeader(comments, names);
  KT_RETURN_IF_ERROR(WriteAll(fd.get(), header, path));
  if (::fsync(fd.get()) != 0) return ErrnoError("fsync " + path, errno);
  KT_ASSIGN_OR_RETURN(Evaluations e, ParseEvaluations(header));
  return SearchJournal(path, std::move(fd), std::move(e));
}

Result<SearchJournal> SearchJournal::Open(const std::string& path) {
  KT_ASSIGN_OR_RETURN(LinesAppend file, OpenLinesForAppend(path));
  auto e = ParseEvaluations(file.text);
  if (!e.ok()) return e.status().WithContext(path);
  return SearchJournal(path, std::move(file.fd), std::move(e).value());
}

Status SearchJournal::Append(const Evaluation& e) {
  KT_RETURN_IF_ERROR(WriteAll(fd_.get(), FormatEvaluation(e), path_));
  if (::fsync(fd_.get()) != 0) return ErrnoError("fsync " + path_, errno);
  evaluations_.rows.push_back(e);
  return Status::Ok();
}

}  // namespace ktune::host
