// khost corpus: Triton kernels collected from Inductor's debug dumps (TORCH_COMPILE_DEBUG=1).
//   extract DEBUG_DIR... --out DIR   every output_code.py: a copy per model, each kernel once
//                                    in DIR/kernels/, DIR/index.json and index.csv
//   sample DIR [--n --long-portion --long-pool --seed] [--out DIR/projections]
//                                    (or --out DIR/projections alone: DIR is the corpus)
//                                    a representative subset, long kernels favoured, same layout
//   export DIR --format text-completion [--dedup] [--min-lines] [--max-lines] [--out FILE]
//                                    [{"input": "<kernel source>"}, ...] (torchtune's shape)
// A file that cannot be read, is not text or is Python the extractor cannot follow is skipped
// with one warning naming it and the line; the summary counts what was skipped and why. The
// corpus directory itself is host/corpus/corpus_dir.h's.
#include <iostream>

#include "common/strings.h"
#include "host/cli/cli.h"
#include "host/cli/cmd_corpus.h"
#include "host/corpus/corpus_dir.h"

namespace ktune::host {

const std::vector<std::string>& CorpusActions() {
  static const std::vector<std::string> kActions = {"extract", "sample", "export"};
  return kActions;
}

cxxopts::Options CorpusCliOptions() {
  cxxopts::Options o("khost corpus",
                     "Triton kernels from Inductor's debug dumps. Actions: extract DEBUG_DIR... "
                     "--out DIR; sample DIR; export DIR.");
  o.add_options(kArgumentsGroup)("action", Join(CorpusActions(), ", "),
                                 cxxopts::value<std::string>(), Join(CorpusActions(), "|"))(
      "paths", "extract: the debug directories; sample, export: the corpus directory",
      cxxopts::value<std::vector<std::string>>(), "PATH...");
  o.add_options()(
      "out",
      "extract: the corpus directory (required); sample: default DIR/projections; export: "
      "default DIR/dataset.json",
      cxxopts::value<std::string>()->default_value(""))(
      "n,count", "sample: how many kernels (also --n N)",
      cxxopts::value<std::string>()->default_value("100"))(
      "long-portion", "sample: the share of n drawn from the long pool",
      cxxopts::value<std::string>()->default_value("0.8"))(
      "long-pool", "sample: the longest share of all kernels that is the long pool",
      cxxopts::value<std::string>()->default_value("0.3"))(
      "seed", "sample: the generator's seed", cxxopts::value<std::string>()->default_value("0"))(
      "format", "export: the dataset's shape (text-completion)",
      cxxopts::value<std::string>()->default_value("text-completion"))(
      "dedup", "export: identical kernels once")("min-lines",
                                                 "export: leave out kernels shorter than this",
                                                 cxxopts::value<std::string>()->default_value("0"))(
      "max-lines", "export: leave out kernels longer than this (0: no limit)",
      cxxopts::value<std::string>()->default_value("0"));
  return o;
}

namespace {

// Each action is host/corpus/corpus_dir.h's: its summary line, what was skipped on stderr.
Result<std::string> RunAction(const CorpusRequest& req) {
  if (req.action == "extract") return ExtractCorpus(req.paths, req.out, std::cerr);
  if (req.action == "sample") return SampleCorpus(req.paths[0], req.out, req.sample);
  return ExportCorpus(req.paths[0], req.out, {req.format, req.dedup, req.min_lines, req.max_lines});
}

Status ExecuteCorpus(const CorpusRequest& req) {
  KT_ASSIGN_OR_RETURN(const std::string summary, RunAction(req));
  std::cout << summary << "\n";
  return Status::Ok();
}

// sample: --count, --long-portion, --long-pool, --seed; --out defaults to CORPUS/projections.
Status ParseSampleOptions(const cxxopts::ParseResult& r, CorpusRequest* req) {
  KT_ASSIGN_OR_RETURN(req->sample.n,
                      IntegerOption(r, "count", 1, 10'000'000, "a whole number of kernels"));
  KT_ASSIGN_OR_RETURN(req->sample.long_portion,
                      RealOption(r, "long-portion", 0, 1, "a share of the kernels"));
  KT_ASSIGN_OR_RETURN(req->sample.long_pool,
                      RealOption(r, "long-pool", 0, 1, "a share of the kernels"));
  KT_ASSIGN_OR_RETURN(req->sample.seed, Uint64Option(r, "seed"));
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
  KT_ASSIGN_OR_RETURN(req->min_lines,
                      IntegerOption(r, "min-lines", 0, 100'000'000, "a whole number of lines"));
  KT_ASSIGN_OR_RETURN(req->max_lines,
                      IntegerOption(r, "max-lines", 0, 100'000'000, "a whole number of lines"));
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
  KT_ASSIGN_OR_RETURN(auto r, ParseOptions(o, spelled, 1));
  CorpusRequest req;
  req.action = r["action"].as<std::string>();
  KT_RETURN_IF_ERROR(CheckAction(req.action, CorpusActions()));
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
