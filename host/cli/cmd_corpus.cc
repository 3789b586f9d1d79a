// khost corpus: Triton kernels collected from Inductor's debug dumps (TORCH_COMPILE_DEBUG=1).
//   extract DEBUG_DIR... --out DIR   every output_code.py: a copy per model, each kernel once
//                                    in DIR/kernels/, DIR/index.json and index.csv
//   sample DIR [--n --long-portion --long-pool --seed] [--out DIR/projections]
//                                    (or --out DIR/projections alone: DIR is the corpus)
//                                    a representative subset, long kernels favoured, same layout
//   export DIR --format text-completion [--dedup] [--min-lines] [--max-lines] [--out FILE]
//                                    [{"input": "<kernel source>"}, ...] (torchtune's shape)
// A file that cannot be read, is not text or is Python the extractor cannot follow is skipped
// with one warning naming it and the line; the summary counts what was skipped and why.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "common/fs.h"
#include "common/hash.h"
#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/cli/command.h"
#include "host/corpus/corpus.h"

namespace ktune::host {
namespace {

namespace fs = std::filesystem;

const char* const kActions = "extract, sample, export";

cxxopts::Options CorpusCliOptions() {
  cxxopts::Options o("khost corpus",
                     "Triton kernels from Inductor's debug dumps. Actions: extract DEBUG_DIR... "
                     "--out DIR; sample DIR; export DIR.");
  o.add_options()("action", kActions, cxxopts::value<std::string>())(
      "paths", "extract: the debug directories; sample, export: the corpus directory",
      cxxopts::value<std::vector<std::string>>())(
      "out",
      "extract: the corpus directory (required); sample: default DIR/projections; export: "
      "default DIR/dataset.json",
      cxxopts::value<std::string>()->default_value(""))(
      "n,count", "sample: how many kernels (also --n N)",
      cxxopts::value<size_t>()->default_value("100"))(
      "long-portion", "sample: the share of n drawn from the long pool",
      cxxopts::value<double>()->default_value("0.8"))(
      "long-pool", "sample: the longest share of all kernels that is the long pool",
      cxxopts::value<double>()->default_value("0.3"))(
      "seed", "sample: the generator's seed", cxxopts::value<uint64_t>()->default_value("0"))(
      "format", "export: the dataset's shape (text-completion)",
      cxxopts::value<std::string>()->default_value("text-completion"))(
      "dedup", "export: identical kernels once")("min-lines",
                                                 "export: leave out kernels shorter than this",
                                                 cxxopts::value<size_t>()->default_value("0"))(
      "max-lines", "export: leave out kernels longer than this (0: no limit)",
      cxxopts::value<size_t>()->default_value("0"));
  o.positional_help("extract|sample|export PATH...");
  return o;
}

// "1 file", "3 files".
std::string CountOf(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// Why a file was skipped, and the count of each reason.
struct Skips {
  std::map<std::string, size_t> by_reason;
  size_t total = 0;
  void Add(const std::string& file, const std::string& reason, const std::string& detail) {
    std::cerr << "khost corpus: skipped " << file << ": " << detail << "\n";
    ++by_reason[reason];
    ++total;
  }
  std::string Describe() const {
    std::vector<std::string> parts;
    for (const auto& [reason, n] : by_reason) parts.push_back(std::to_string(n) + " " + reason);
    return CountOf(total, "file") + (parts.empty() ? "" : " (" + Join(parts, ", ") + ")");
  }
};

// A kernel's or model's name as a file name: anything but ASCII letters, digits, '_' and '-'
// becomes '_' (so no name leaves its directory or holds the ".." an index refuses), and it is
// cut at 100 bytes (file systems stop at 255; Claim may add a suffix).
std::string FileNameOf(const std::string& name) {
  std::string out = name.empty() ? "_" : name.substr(0, 100);
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  }
  return out;
}

// The first of `stem`.py, `fallback`.py, `fallback`_2.py, `fallback`_3.py, ... in `dir` that
// `taken` lacks, which gains it: a model's second file is m_2.py, and a model named "m_2" then
// gets m_2_2.py rather than overwriting it.
std::string Claim(std::set<std::string>& taken, const std::string& dir, const std::string& stem,
                  const std::string& fallback) {
  std::string name = dir + stem + ".py";
  for (size_t n = 1; !taken.insert(name).second; ++n) {
    name = dir + fallback + (n == 1 ? "" : "_" + std::to_string(n)) + ".py";
  }
  return name;
}

int LineOf(std::string_view text, size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// DIR must not hold a corpus already: a second extract or sample into it would mix two.
Status FreshOutput(const std::string& dir) {
  if (fs::exists(dir + "/index.json")) {
    return InvalidArgument(dir + " already holds a corpus (index.json); give another --out");
  }
  return MakeDirs(dir);
}

Status WriteIndex(const std::string& dir, const CorpusIndex& index) {
  KT_RETURN_IF_ERROR(WriteFileAtomic(dir + "/index.csv", CorpusIndexCsv(index)));
  return WriteFileAtomic(dir + "/index.json", CorpusIndexJson(index));
}

Result<CorpusIndex> LoadIndex(const std::string& dir) {
  KT_ASSIGN_OR_RETURN(std::string text, ReadFile(dir + "/index.json"));
  auto index = ParseCorpusIndex(text);
  if (!index.ok()) return index.status().WithContext(dir + "/index.json");
  return index;
}

// The output_code.py files under `dir`, in path order: whatever is not a directory (a dangling
// link too, which reading then reports as unreadable).
Result<std::vector<std::string>> OutputCodes(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return InvalidArgument(dir + " is not a directory");
  std::vector<std::string> files;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code dir_ec;
    if (it->path().filename() == "output_code.py" && !it->is_directory(dir_ec)) {
      files.push_back(it->path().string());
    }
  }
  if (ec) return IoError("reading " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

// The index's kernels, each hash once (its first entry).
std::vector<CorpusEntry> Unique(const CorpusIndex& index) {
  std::vector<CorpusEntry> unique;
  std::set<std::string> seen;
  for (const CorpusEntry& e : index.kernels) {
    if (seen.insert(e.hash).second) unique.push_back(e);
  }
  return unique;
}

// Every output_code.py under the debug directories given, with the directory it was found
// under; a file under two overlapping directories once.
Result<std::vector<std::pair<std::string, std::string>>> ListOutputCodes(
    const std::vector<std::string>& dirs) {
  std::vector<std::pair<std::string, std::string>> files;  // (debug dir, file)
  std::set<std::string> listed;
  for (const std::string& dir : dirs) {
    KT_ASSIGN_OR_RETURN(std::vector<std::string> found, OutputCodes(dir));
    for (std::string& f : found) {
      std::error_code ec;
      if (listed.insert(fs::weakly_canonical(f, ec).string()).second) {
        files.emplace_back(dir, std::move(f));
      }
    }
  }
  return files;
}

// The Triton kernels of one output_code.py, with its text; nullopt when the file is skipped
// (said in `skips`).
struct ReadCode {
  std::string text;
  std::vector<CorpusKernel> kernels;
};
std::optional<ReadCode> ReadOutputCode(const std::string& file, Skips& skips) {
  auto text = ReadFile(file);
  if (!text.ok()) {
    skips.Add(file, "unreadable", text.status().message());
    return std::nullopt;
  }
  if (auto bad = FirstNonTextByte(*text)) {
    skips.Add(file, "not text",
              "line " + std::to_string(LineOf(*text, *bad)) + ": byte " +
                  std::to_string(static_cast<unsigned char>((*text)[*bad])) + " is not UTF-8 text");
    return std::nullopt;
  }
  auto kernels = ExtractTritonKernels(*text);
  if (!kernels.ok()) {
    skips.Add(file, "unparsable", kernels.status().message());
    return std::nullopt;
  }
  return ReadCode{std::move(*text), std::move(*kernels)};
}

// Writes an extracted corpus: each model's file under model_output_codes/, each unique kernel
// under kernels/ (names that meet never overwrite), and the index.
class CorpusWriter {
 public:
  explicit CorpusWriter(std::string out) : out_(std::move(out)) {}

  Status Add(const std::string& dir, const std::string& file, const ReadCode& code) {
    ++files_read_;
    // Absolute, so that `extract .` or `extract torch_compile_debug` still finds the model.
    std::error_code ec;
    const std::string model = ModelOf(fs::absolute(dir, ec).lexically_normal().string(),
                                      fs::absolute(file, ec).lexically_normal().string());
    models_.insert(model);
    const std::string model_file = FileNameOf(model);
    KT_RETURN_IF_ERROR(WriteFileAtomic(
        out_ + "/" + Claim(model_files_, "model_output_codes/", model_file, model_file),
        code.text));
    for (const CorpusKernel& k : code.kernels) {
      CorpusEntry e{
          k.name,      model,          file,   k.first_line,
          k.last_line, k.length_lines, k.kind, HashBytes(NormalizeKernel(k.source, k.name)),
          ""};
      auto [it, first] = file_of_hash_.emplace(e.hash, "");
      if (first) {
        const std::string name = Claim(kernel_files_, "kernels/", FileNameOf(k.name),
                                       FileNameOf(k.name) + "_" + e.hash.substr(0, 8));
        KT_RETURN_IF_ERROR(WriteFileAtomic(out_ + "/" + name, k.source));
        it->second = name;
      }
      e.file = it->second;
      index_.kernels.push_back(std::move(e));
    }
    return Status::Ok();
  }

  // Writes the index and says what was extracted and skipped.
  Status Finish(const Skips& skips) {
    KT_RETURN_IF_ERROR(WriteIndex(out_, index_));
    std::map<std::string, size_t> kinds;
    for (const CorpusEntry& e : Unique(index_)) ++kinds[e.kind];
    std::vector<std::string> kind_counts;
    for (const auto& [kind, n] : kinds) kind_counts.push_back(std::to_string(n) + " " + kind);
    std::cout << "extracted " << CountOf(index_.kernels.size(), "kernel") << " ("
              << file_of_hash_.size() << " unique"
              << (kind_counts.empty() ? "" : ": " + Join(kind_counts, ", ")) << ") from "
              << CountOf(files_read_, "file") << " of " << CountOf(models_.size(), "model")
              << " into " << out_ << "; skipped " << skips.Describe() << "\n";
    return Status::Ok();
  }

 private:
  const std::string out_;
  CorpusIndex index_;
  std::set<std::string> model_files_;                // model_output_codes/*.py written
  std::map<std::string, std::string> file_of_hash_;  // kernel hash -> its file
  std::set<std::string> kernel_files_, models_;
  size_t files_read_ = 0;
};

Status Extract(const CorpusRequest& req) {
  KT_ASSIGN_OR_RETURN(const auto files, ListOutputCodes(req.paths));
  KT_RETURN_IF_ERROR(FreshOutput(req.out));
  KT_RETURN_IF_ERROR(MakeDirs(req.out + "/kernels"));
  KT_RETURN_IF_ERROR(MakeDirs(req.out + "/model_output_codes"));
  CorpusWriter writer(req.out);
  Skips skips;
  for (const auto& [dir, file] : files) {
    if (auto code = ReadOutputCode(file, skips)) KT_RETURN_IF_ERROR(writer.Add(dir, file, *code));
  }
  return writer.Finish(skips);
}

Status Sample(const CorpusRequest& req) {
  const std::string& corpus = req.paths[0];
  KT_ASSIGN_OR_RETURN(CorpusIndex index, LoadIndex(corpus));
  const std::vector<CorpusEntry> unique = Unique(index);
  std::vector<size_t> lengths;
  for (const CorpusEntry& e : unique) lengths.push_back(e.length_lines);
  const std::vector<size_t> chosen = SampleKernels(lengths, req.sample);
  KT_RETURN_IF_ERROR(FreshOutput(req.out));
  KT_RETURN_IF_ERROR(MakeDirs(req.out + "/kernels"));
  CorpusIndex sample;
  sample.sampled_with = "n=" + std::to_string(req.sample.n) +
                        " long_portion=" + FormatDouble(req.sample.long_portion) +
                        " long_pool=" + FormatDouble(req.sample.long_pool) +
                        " seed=" + std::to_string(req.sample.seed);
  for (size_t i : chosen) {
    CorpusEntry e = unique[i];
    KT_ASSIGN_OR_RETURN(std::string source, ReadFile(corpus + "/" + e.file));
    KT_RETURN_IF_ERROR(WriteFileAtomic(req.out + "/" + e.file, source));
    sample.kernels.push_back(std::move(e));
  }
  KT_RETURN_IF_ERROR(WriteIndex(req.out, sample));
  std::cout << "sampled " << chosen.size() << " of " << unique.size() << " unique kernels ("
            << sample.sampled_with << ") into " << req.out << "\n";
  return Status::Ok();
}

// Whether `path` is one of the corpus's own files (its index, a kernel, a model's file), which
// a dataset must not replace.
bool InCorpus(const std::string& corpus, const std::string& path) {
  std::error_code ec;
  const fs::path rel =
      fs::weakly_canonical(path, ec).lexically_relative(fs::weakly_canonical(corpus, ec));
  if (rel.empty() || *rel.begin() == "..") return false;
  return rel == "index.json" || rel == "index.csv" || *rel.begin() == "kernels" ||
         *rel.begin() == "model_output_codes";
}

Status Export(const CorpusRequest& req) {
  const std::string& corpus = req.paths[0];
  KT_ASSIGN_OR_RETURN(CorpusIndex index, LoadIndex(corpus));
  if (InCorpus(corpus, req.out)) {
    return InvalidArgument("--out " + req.out + " is a file of the corpus " + corpus +
                           "; give another");
  }
  const std::vector<CorpusEntry> entries = req.dedup ? Unique(index) : index.kernels;
  nlohmann::json dataset = nlohmann::json::array();
  size_t left_out = 0;
  for (const CorpusEntry& e : entries) {
    if (e.length_lines < req.min_lines || (req.max_lines && e.length_lines > req.max_lines)) {
      ++left_out;
      continue;
    }
    KT_ASSIGN_OR_RETURN(std::string source, ReadFile(corpus + "/" + e.file));
    dataset.push_back({{"input", source}});
  }
  KT_RETURN_IF_ERROR(WriteFileAtomic(
      req.out, dataset.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));
  std::cout << "exported " << dataset.size() << " kernels to " << req.out << " (" << req.format
            << (req.dedup ? ", deduplicated" : "") << "; " << left_out << " left out by length)\n";
  return Status::Ok();
}

Status ExecuteCorpus(const CorpusRequest& req) {
  if (req.action == "extract") return Extract(req);
  if (req.action == "sample") return Sample(req);
  return Export(req);
}

// sample: --count, --long-portion, --long-pool, --seed; --out defaults to CORPUS/projections.
Status ParseSampleOptions(const cxxopts::ParseResult& r, CorpusRequest* req) {
  req->sample.n = r["count"].as<size_t>();
  req->sample.long_portion = r["long-portion"].as<double>();
  req->sample.long_pool = r["long-pool"].as<double>();
  req->sample.seed = r["seed"].as<uint64_t>();
  for (auto [name, value] : {std::pair{"--long-portion", req->sample.long_portion},
                             std::pair{"--long-pool", req->sample.long_pool}}) {
    if (!(value >= 0 && value <= 1)) return InvalidArgument(std::string(name) + " is 0 to 1");
  }
  if (req->out.empty()) req->out = req->paths[0] + "/projections";
  return Status::Ok();
}

// export: --format, --dedup, --min-lines, --max-lines; --out defaults to CORPUS/dataset.json.
Status ParseExportOptions(const cxxopts::ParseResult& r, CorpusRequest* req) {
  req->format = r["format"].as<std::string>();
  if (req->format != "text-completion") {
    return InvalidArgument("unknown format '" + req->format + "' (text-completion)");
  }
  req->dedup = r.count("dedup") > 0;
  req->min_lines = r["min-lines"].as<size_t>();
  req->max_lines = r["max-lines"].as<size_t>();
  if (req->max_lines && req->max_lines < req->min_lines) {
    return InvalidArgument("--max-lines is below --min-lines");
  }
  if (req->out.empty()) req->out = req->paths[0] + "/dataset.json";
  return Status::Ok();
}

}  // namespace

Result<CorpusRequest> ParseCorpusArgs(const Args& args) {
  cxxopts::Options o = CorpusCliOptions();
  // The seed's scripts spelled the count --n, which cxxopts takes for a malformed short option.
  Args spelled = args;
  for (std::string& a : spelled) {
    if (a == "--n") a = "--count";
    if (a.starts_with("--n=")) a = "--count=" + a.substr(4);
  }
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, spelled, {"action", "paths"}, 1));
  CorpusRequest req;
  req.action = r["action"].as<std::string>();
  if (r.count("paths")) req.paths = r["paths"].as<std::vector<std::string>>();
  req.out = r["out"].as<std::string>();
  auto only_with = [&](const std::vector<std::string>& options, const std::string& action) {
    return OptionsOnlyWith(r, "corpus", req.action, action, options);
  };
  KT_RETURN_IF_ERROR(only_with({"count", "long-portion", "long-pool", "seed"}, "sample"));
  KT_RETURN_IF_ERROR(only_with({"format", "dedup", "min-lines", "max-lines"}, "export"));
  if (req.action == "extract") {
    if (req.paths.empty()) return InvalidArgument("'khost corpus extract' needs a DEBUG_DIR");
    if (req.out.empty()) return InvalidArgument("'khost corpus extract' needs --out DIR");
    return req;
  }
  if (req.action != "sample" && req.action != "export") {
    return InvalidArgument("unknown action '" + req.action + "' (" + kActions + ")");
  }
  // sample --out DIR/projections alone, as the seed's script took it: the corpus is DIR.
  if (req.action == "sample" && req.paths.empty() && !req.out.empty()) {
    std::string out = req.out;
    while (out.size() > 1 && out.back() == '/') out.pop_back();
    const size_t slash = out.rfind('/');
    req.paths.push_back(slash == std::string::npos ? "." : slash == 0 ? "/" : out.substr(0, slash));
  }
  if (req.paths.size() != 1) {
    return InvalidArgument("'khost corpus " + req.action + "' takes one corpus directory");
  }
  if (req.action == "sample") {
    KT_RETURN_IF_ERROR(ParseSampleOptions(r, &req));
  } else {
    KT_RETURN_IF_ERROR(ParseExportOptions(r, &req));
  }
  return req;
}

int CorpusMain(const Args& args) {
  return CommandMain("corpus", CorpusCliOptions, ParseCorpusArgs, ExecuteCorpus, args);
}

}  // namespace ktune::host
