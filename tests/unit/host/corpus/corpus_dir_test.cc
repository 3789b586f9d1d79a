// A corpus on disk (host/corpus/corpus_dir.h), from the Inductor-shaped fixtures of
// test_data/inductor: extract, sample, export, and what each refuses.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/fs.h"
#include "host/corpus/corpus_dir.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

const std::string kFixtures = KTUNE_TEST_DATA "/inductor";

TEST_CASE("a corpus: extracted once, sampled into a corpus of its own, exported as a dataset") {
  test::UnitTempDir tmp;
  const std::string corpus = tmp / "corpus";
  std::ostringstream warnings;
  auto extracted = ExtractCorpus({kFixtures}, corpus, warnings);
  REQUIRE_MESSAGE(extracted.ok(), extracted.status().message());
  CHECK(*extracted ==
        "extracted 5 kernels (4 unique: 1 other, 1 persistent_reduction, 1 pointwise, "
        "1 reduction) from 3 files of 3 models into " +
            corpus + "; skipped 0 files");
  CHECK(warnings.str().empty());
  CHECK(std::filesystem::exists(corpus + "/index.csv"));
  CHECK(ExtractCorpus({kFixtures}, corpus, warnings).status().message() ==
        corpus + " already holds a corpus (index.json); give another --out");

  CorpusSampleOptions options;
  options.n = 2;
  const std::string projections = corpus + "/projections";
  auto sampled = SampleCorpus(corpus, projections, options);
  REQUIRE_MESSAGE(sampled.ok(), sampled.status().message());
  CHECK(*sampled ==
        "sampled 2 of 4 unique kernels (n=2 long_portion=0.8 long_pool=0.3 seed=0) "
        "into " +
            projections);
  auto index = ParseCorpusIndex(ReadFile(projections + "/index.json").value());
  REQUIRE(index.ok());
  CHECK(index->kernels.size() == 2);
  CHECK(index->sampled_with == "n=2 long_portion=0.8 long_pool=0.3 seed=0");

  const std::string dataset = tmp / "dataset.json";
  auto exported = ExportCorpus(corpus, dataset, {.dedup = true, .max_lines = 1000});
  REQUIRE_MESSAGE(exported.ok(), exported.status().message());
  CHECK(*exported == "exported 4 kernels to " + dataset +
                         " (text-completion, deduplicated; 0 left out by length)");
  const auto json = nlohmann::json::parse(ReadFile(dataset).value());
  REQUIRE(json.size() == 4);
  CHECK(json[0].contains("input"));
  CHECK(ExportCorpus(corpus, corpus + "/index.json", {}).status().message() ==
        "--out " + corpus + "/index.json is a file of the corpus " + corpus + "; give another");
}

TEST_CASE("extract skips what it cannot read as Python text, one warning each, and counts why") {
  test::UnitTempDir tmp;
  const std::string debug = tmp / "m/torch_compile_debug/run_1/torchinductor/g";
  REQUIRE(MakeDirs(debug).ok());
  REQUIRE(WriteFileAtomic(debug + "/output_code.py", "import triton\nx = (1,\n    2\n").ok());
  std::ostringstream warnings;
  auto extracted = ExtractCorpus({tmp / "m"}, tmp / "corpus", warnings);
  REQUIRE(extracted.ok());
  CHECK(extracted->ends_with("; skipped 1 file (1 unparsable)"));
  CHECK(warnings.str() == "khost corpus: skipped " + tmp / "m" +
                              "/torch_compile_debug/run_1/torchinductor/g/output_code.py: line 2: "
                              "'(' is never closed\n");
}

}  // namespace
}  // namespace ktune::host
