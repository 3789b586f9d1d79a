#include "host/corpus/corpus_dir.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "common/fs.h"
#include "common/hash.h"
#include "common/strings.h"
#include "host/util/user_paths.h"

namespace ktune::host {
namespace {

namespace fs = std::filesystem;

// "1 file", "3 files".
std::string CountOf(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// Why a file was skipped, and the count of each reason; each skip is said on `warnings`.
struct Skips {
  explicit Skips(std::ostream& out) : warnings(out) {}
  std::ostream& warnings;
  std::map<std::string, size_t> by_reason;
  size_t total = 0;
  void Add(const std::string& file, const std::string& reason, const std::string& detail) {
    warnings << "khost corpus: skipped " << file << ": " << detail << "\n";
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

  // Writes the index; returns what was extracted and skipped.
  Result<std::string> Finish(const Skips& skips) {
    KT_RETURN_IF_ERROR(WriteIndex(out_, index_));
    std::map<std::string, size_t> kinds;
    for (const CorpusEntry& e : Unique(index_)) ++kinds[e.kind];
    std::vector<std::string> kind_counts;
    for (const auto& [kind, n] : kinds) kind_counts.push_back(std::to_string(n) + " " + kind);
    return "extracted " + CountOf(index_.kernels.size(), "kernel") + " (" +
           std::to_string(file_of_hash_.size()) + " unique" +
           (kind_counts.empty() ? "" : ": " + Join(kind_counts, ", ")) + ") from " +
           CountOf(files_read_, "file") + " of " + CountOf(models_.size(), "model") + " into " +
           out_ + "; skipped " + skips.Describe();
  }

 private:
  const std::string out_;
  CorpusIndex index_;
  std::set<std::string> model_files_;                // model_output_codes/*.py written
  std::map<std::string, std::string> file_of_hash_;  // kernel hash -> its file
  std::set<std::string> kernel_files_, models_;
  size_t files_read_ = 0;
};

}  // namespace

Result<std::string> ExtractCorpus(const std::vector<std::string>& debug_dirs,
                                  const std::string& out, std::ostream& warnings) {
  KT_ASSIGN_OR_RETURN(const auto files, ListOutputCodes(debug_dirs));
  KT_RETURN_IF_ERROR(FreshOutput(out));
  KT_RETURN_IF_ERROR(MakeDirs(out + "/kernels"));
  KT_RETURN_IF_ERROR(MakeDirs(out + "/model_output_codes"));
  CorpusWriter writer(out);
  Skips skips(warnings);
  for (const auto& [dir, file] : files) {
    if (auto code = ReadOutputCode(file, skips)) KT_RETURN_IF_ERROR(writer.Add(dir, file, *code));
  }
  return writer.Finish(skips);
}

Result<std::string> SampleCorpus(const std::string& corpus, const std::string& out,
                                 const CorpusSampleOptions& options) {
  KT_ASSIGN_OR_RETURN(CorpusIndex index, LoadIndex(corpus));
  const std::vector<CorpusEntry> unique = Unique(index);
  std::vector<size_t> lengths;
  for (const CorpusEntry& e : unique) lengths.push_back(e.length_lines);
  const std::vector<size_t> chosen = SampleKernels(lengths, options);
  KT_RETURN_IF_ERROR(FreshOutput(out));
  KT_RETURN_IF_ERROR(MakeDirs(out + "/kernels"));
  CorpusIndex sample;
  sample.sampled_with =
      "n=" + std::to_string(options.n) + " long_portion=" + FormatDouble(options.long_portion) +
      " long_pool=" + FormatDouble(options.long_pool) + " seed=" + std::to_string(options.seed);
  for (size_t i : chosen) {
    CorpusEntry e = unique[i];
    KT_ASSIGN_OR_RETURN(std::string source, ReadFile(corpus + "/" + e.file));
    KT_RETURN_IF_ERROR(WriteFileAtomic(out + "/" + e.file, source));
    sample.kernels.push_back(std::move(e));
  }
  KT_RETURN_IF_ERROR(WriteIndex(out, sample));
  return "sampled " + std::to_string(chosen.size()) + " of " + std::to_string(unique.size()) +
         " unique kernels (" + sample.sampled_with + ") into " + out;
}

namespace {

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

}  // namespace

Result<std::string> ExportCorpus(const std::string& corpus, const std::string& out,
                                 const CorpusExportOptions& options) {
  KT_ASSIGN_OR_RETURN(CorpusIndex index, LoadIndex(corpus));
  if (InCorpus(corpus, out)) {
    return InvalidArgument("--out " + out + " is a file of the corpus " + corpus +
                           "; give another");
  }
  const std::vector<CorpusEntry> entries = options.dedup ? Unique(index) : index.kernels;
  nlohmann::json dataset = nlohmann::json::array();
  size_t left_out = 0;
  for (const CorpusEntry& e : entries) {
    if (e.length_lines < options.min_lines ||
        (options.max_lines && e.length_lines > options.max_lines)) {
      ++left_out;
      continue;
    }
    KT_ASSIGN_OR_RETURN(std::string source, ReadFile(corpus + "/" + e.file));
    dataset.push_back({{"input", source}});
  }
  KT_RETURN_IF_ERROR(WriteUserFile(  // --out names it
      out, dataset.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));
  return "exported " + std::to_string(dataset.size()) + " kernels to " + out + " (" +
         options.format + (options.dedup ? ", deduplicated" : "") + "; " +
         std::to_string(left_out) + " left out by length)";
}

}  // namespace ktune::host
