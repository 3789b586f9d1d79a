// The Python reader (host/corpus/pysource.h) and the Triton kernel extractor
// (host/corpus/corpus.h), on output_code.py-shaped text written here.
#include <doctest/doctest.h>

#include <algorithm>

#include "host/cli/cmd_corpus.h"
#include "host/corpus/corpus.h"
#include "host/corpus/pysource.h"

namespace ktune::host {
namespace {

TEST_CASE("khost corpus: arguments into a request, defaults filled, misplaced options refused") {
  auto extract = ParseCorpusArgs({"extract", "a", "b/", "--out", "c"});
  REQUIRE(extract.ok());
  CHECK(extract->paths == std::vector<std::string>{"a", "b/"});
  CHECK(extract->out == "c");
  auto sample = ParseCorpusArgs({"sample", "c", "--n", "7", "--seed", "3"});
  REQUIRE(sample.ok());
  CHECK(sample->sample.n == 7);
  CHECK(sample->sample.seed == 3);
  CHECK(sample->sample.long_portion == 0.8);
  CHECK(sample->sample.long_pool == 0.3);
  CHECK(sample->out == "c/projections");
  CHECK(ParseCorpusArgs({"sample", "c", "--n=9"})->sample.n == 9);
  // The spelling: --out DIR/projections alone names the corpus DIR.
  auto by_out = ParseCorpusArgs({"sample", "--n", "100", "--out", "runs/corpus/projections/"});
  REQUIRE(by_out.ok());
  CHECK(by_out->paths == std::vector<std::string>{"runs/corpus"});
  CHECK(ParseCorpusArgs({"sample", "--out", "projections"})->paths ==
        std::vector<std::string>{"."});
  CHECK(ParseCorpusArgs({"sample"}).status().message() ==
        "'khost corpus sample' takes one corpus directory");
  CHECK(ParseCorpusArgs({"sample", "c", "-n", "4"})->sample.n == 4);
  auto exp = ParseCorpusArgs({"export", "c", "--dedup", "--max-lines", "50"});
  REQUIRE(exp.ok());
  CHECK(exp->dedup);
  CHECK(exp->max_lines == 50);
  CHECK(exp->out == "c/dataset.json");
  CHECK(ParseCorpusArgs({"export", "c", "d"}).status().message() ==
        "'khost corpus export' takes one corpus directory");
  CHECK(ParseCorpusArgs({"extract", "a", "--n", "3", "--out", "c"}).status().message() ==
        "--count goes with 'khost corpus sample'");
  CHECK(
      ParseCorpusArgs({"export", "c", "--min-lines", "9", "--max-lines", "3"}).status().message() ==
      "--max-lines is below --min-lines");
  CHECK(ParseCorpusArgs({"sample", "c", "--long-portion", "-0.1"}).status().message() ==
        "--long-portion '-0.1': a share of the kernels from 0 to 1");
}

}  // namespace
}  // namespace ktune::host
