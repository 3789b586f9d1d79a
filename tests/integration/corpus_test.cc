// khost corpus as a user runs it: extract from the Inductor-shaped fixtures of
// test_data/inductor (and files it must skip), sample, export.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "common/fs.h"
#include "host/corpus/corpus.h"
#include "tests/contains.h"
#include "tests/integration/harness.h"

namespace ktune::host {
namespace {
namespace fs = std::filesystem;

using test::Contains;

struct Corpus {
  test::TempDir tmp;
  std::string fixtures = std::string(KTUNE_SOURCE_DIR) + "/test_data/inductor";
  std::string bad = tmp.path() + "/bad";  // debug dirs of files extract must skip
  std::string out = tmp.path() + "/corpus";
  Corpus() {
    const std::string graph = "/torch_compile_debug/run_1/torchinductor/g";
    for (const char* model : {"unparsable", "binary", "unreadable"}) {
      fs::create_directories(bad + "/" + model + graph);
    }
    REQUIRE(WriteFileAtomic(bad + "/unparsable" + graph + "/output_code.py",
                            "import triton\nx = (1,\n    2\n")
                .ok());
    REQUIRE(WriteFileAtomic(bad + "/binary" + graph + "/output_code.py",
                            std::string("import triton\n\x7f"
                                        "ELF\x02\x01\0\0",
                                        22))
                .ok());
    // A file whose read fails, even for root: this process's memory at address 0.
    fs::create_symlink("/proc/self/mem", bad + "/unreadable" + graph + "/output_code.py");
  }
  test::CommandResult Khost(const std::vector<std::string>& args) {
    std::vector<std::string> full = {"corpus"};
    full.insert(full.end(), args.begin(), args.end());
    return test::RunKhost(full, tmp.path());
  }
  CorpusIndex Index(const std::string& dir) {
    auto index = ParseCorpusIndex(ReadFile(dir + "/index.json").value());
    REQUIRE(index.ok());
    return *index;
  }
};

TEST_CASE("extract: each kernel once with its imports, every file skipped named with its line") {
  Corpus c;
  auto r = c.Khost({"extract", c.fixtures, c.bad, "--out", c.out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(Contains(r.out,
                 "extracted 5 kernels (4 unique: 1 other, 1 persistent_reduction, 1 pointwise, "
                 "1 reduction) from 3 files of 3 models into " +
                     c.out + "; skipped 3 files (1 not text, 1 unparsable, 1 unreadable)"));
  const auto warnings = r.ErrLines();
  REQUIRE(warnings.size() == 3);
  CHECK(Contains(r.err,
                 "binary/torch_compile_debug/run_1/torchinductor/g/output_code.py: line 2: "
                 "byte 0 is not UTF-8 text"));
  CHECK(Contains(r.err,
                 "unparsable/torch_compile_debug/run_1/torchinductor/g/output_code.py: "
                 "line 2: '(' is never closed"));
  CHECK(Contains(r.err, "unreadable/torch_compile_debug/run_1/torchinductor/g/output_code.py: "));

  for (const char* model : {"mlp_small", "attention_toy", "no_kernels"}) {
    CHECK(fs::exists(c.out + "/model_output_codes/" + model + ".py"));
  }
  const CorpusIndex index = c.Index(c.out);
  REQUIRE(index.kernels.size() == 5);
  size_t kernel_files = 0;
  for (const auto& e : fs::directory_iterator(c.out + "/kernels"))
    kernel_files += e.is_regular_file();
  CHECK(kernel_files == 4);
  for (const CorpusEntry& e : index.kernels) {
    CAPTURE(e.name);
    const std::string source = ReadFile(c.out + "/" + e.file).value();
    CHECK(source.starts_with("import triton\n"));
    CHECK(Contains(source, "@triton.jit\ndef "));
    CHECK(Contains(ReadFile(c.out + "/index.csv").value(), e.name + "," + e.model + ","));
  }
  const CorpusEntry& scores = index.kernels[0];  // attention_toy sorts first
  CHECK(scores.name == "scaled_scores");
  CHECK(scores.kind == "other");
  CHECK(scores.first_line == 18);
  CHECK(scores.last_line == 34);
  const std::string scores_source = ReadFile(c.out + "/" + scores.file).value();
  CHECK(Contains(scores_source, "    def tile(ptr, rows, cols):"));  // its nested helper
  CHECK_FALSE(Contains(scores_source, "import torch\n"));            // an import it does not use
  CHECK_FALSE(Contains(scores_source, "this_is_text_not_a_kernel"));
  // The add+relu generated twice: two entries, one file.
  CHECK(index.kernels[2].name == "triton_poi_fused_add_relu_0");
  CHECK(index.kernels[4].name == "triton_poi_fused_add_relu_2");
  CHECK(index.kernels[2].hash == index.kernels[4].hash);
  CHECK(index.kernels[4].file == "kernels/triton_poi_fused_add_relu_0.py");

  // A second extract into the same directory would mix two corpora: refused, nothing touched.
  auto again = c.Khost({"extract", c.fixtures, "--out", c.out});
  CHECK(again.exit_code == 1);
  CHECK(again.ErrLines().size() == 1);
  CHECK(Contains(again.err, "already holds a corpus"));
  CHECK(c.Index(c.out).kernels.size() == 5);
}

TEST_CASE("extract: names that meet each get a file of their own, nothing overwritten") {
  Corpus c;
  // Model m twice (two graphs) and a model named m_2; kernel k twice with different code.
  const std::string dumps = c.tmp.path() + "/dumps";
  const std::string graphs[] = {"/m/torch_compile_debug/run_1/torchinductor/g0",
                                "/m/torch_compile_debug/run_1/torchinductor/g1",
                                "/m_2/torch_compile_debug/run_1/torchinductor/g0"};
  for (int i = 0; i < 3; ++i) {
    fs::create_directories(dumps + graphs[i]);
    REQUIRE(WriteFileAtomic(dumps + graphs[i] + "/output_code.py",
                            "@triton.jit\ndef k(x):\n    return x + " + std::to_string(i) + "\n")
                .ok());
  }
  auto r = c.Khost({"extract", dumps, "--out", c.out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(Contains(r.out, "extracted 3 kernels (3 unique: 3 other) from 3 files of 2 models"));
  for (const char* file : {"m.py", "m_2.py", "m_2_2.py"}) {
    CAPTURE(file);
    CHECK(fs::exists(c.out + "/model_output_codes/" + file));
  }
  std::set<std::string> files;
  for (const CorpusEntry& e : c.Index(c.out).kernels) {
    files.insert(e.file);
    CHECK(Contains(ReadFile(c.out + "/" + e.file).value(),
                   "return x + " + std::to_string(files.size() - 1)));
  }
  CHECK(files.size() == 3);
  CHECK(files.count("kernels/k.py"));
}

TEST_CASE("sample: the same seed, the same choice, written to its index; export: the dataset") {
  Corpus c;
  REQUIRE(c.Khost({"extract", c.fixtures, "--out", c.out}).exit_code == 0);
  auto one = c.Khost({"sample", c.out, "--n", "2", "--long-portion", "0.5", "--long-pool", "0.5",
                      "--seed", "7", "--out", c.tmp.path() + "/p1"});
  REQUIRE_MESSAGE(one.exit_code == 0, one.err);
  CHECK(Contains(one.out,
                 "sampled 2 of 4 unique kernels (n=2 long_portion=0.5 long_pool=0.5 "
                 "seed=7)"));
  auto two = c.Khost({"sample", c.out, "--n=2", "--long-portion", "0.5", "--long-pool", "0.5",
                      "--seed", "7", "--out", c.tmp.path() + "/p2"});
  REQUIRE(two.exit_code == 0);
  CHECK(ReadFile(c.tmp.path() + "/p1/index.json").value() ==
        ReadFile(c.tmp.path() + "/p2/index.json").value());
  const CorpusIndex sample = c.Index(c.tmp.path() + "/p1");
  CHECK(sample.sampled_with == "n=2 long_portion=0.5 long_pool=0.5 seed=7");
  REQUIRE(sample.kernels.size() == 2);
  for (const CorpusEntry& e : sample.kernels) CHECK(fs::exists(c.tmp.path() + "/p1/" + e.file));
  // Of the 4 unique kernels the 2 longest (20 and 18 lines; 18 ties go by index) are the pool.
  size_t long_ones = 0;
  for (const CorpusEntry& e : sample.kernels) long_ones += e.length_lines >= 18;
  CHECK(long_ones >= 1);
  // The default: DIR/projections, every kernel when n is over the count.
  REQUIRE(c.Khost({"sample", c.out, "--n", "100"}).exit_code == 0);
  CHECK(c.Index(c.out + "/projections").kernels.size() == 4);

  auto all = c.Khost({"export", c.out, "--format", "text-completion"});
  REQUIRE_MESSAGE(all.exit_code == 0, all.err);
  const auto dataset = nlohmann::json::parse(ReadFile(c.out + "/dataset.json").value());
  REQUIRE(dataset.is_array());
  CHECK(dataset.size() == 5);
  for (const auto& item : dataset) {
    CHECK(item.size() == 1);
    CHECK(item["input"].get<std::string>().starts_with("import triton\n"));
  }
  auto limited = c.Khost({"export", c.out, "--dedup", "--min-lines", "18", "--max-lines", "18",
                          "--out", c.tmp.path() + "/d.json"});
  REQUIRE(limited.exit_code == 0);
  CHECK(Contains(limited.out, "exported 2 kernels"));  // the two of 18 lines
  CHECK(nlohmann::json::parse(ReadFile(c.tmp.path() + "/d.json").value()).size() == 2);
}

TEST_CASE("corpus: bad input is one error line and a non-zero exit") {
  Corpus c;
  auto one_error = [&](const std::vector<std::string>& args, int code, const std::string& text) {
    auto r = c.Khost(args);
    CAPTURE(r.err);
    CHECK(r.exit_code == code);
    CHECK(r.ErrLines().size() == 1);
    CHECK(Contains(r.err, text));
  };
  one_error({"scan", c.fixtures}, 2, "unknown action 'scan' (extract, sample, export)");
  one_error({"extract", c.fixtures}, 2, "needs --out DIR");
  one_error({"extract", c.tmp.path() + "/none", "--out", c.out}, 1, "is not a directory");
  one_error({"sample", c.fixtures}, 1, "index.json");
  one_error({"sample", c.out, "--long-pool", "1.5"}, 2,
            "--long-pool '1.5': a share of the kernels from 0 to 1");
  one_error({"export", c.out, "--format", "chat"}, 2, "unknown format 'chat'");
  one_error({"export", c.out, "--seed", "1"}, 2, "--seed goes with 'khost corpus sample'");
  REQUIRE(WriteFileAtomic(c.tmp.path() + "/index.json", "{\"schema\": 1, \"kernels\": [{}]}").ok());
  one_error({"export", c.tmp.path()}, 1, "kernel 0: no name");

  // A dataset never takes the place of the corpus's own files.
  REQUIRE(c.Khost({"extract", c.fixtures, "--out", c.out}).exit_code == 0);
  const std::string index = ReadFile(c.out + "/index.json").value();
  for (const char* own : {"/index.json", "/index.csv", "/kernels/scaled_scores.py"}) {
    one_error({"export", c.out, "--out", c.out + own}, 1, "is a file of the corpus");
  }
  CHECK(ReadFile(c.out + "/index.json").value() == index);
}

TEST_CASE("extract: odd names and paths, overlapping directories, a dangling link") {
  Corpus c;
  const std::string graph = "/torch_compile_debug/run_1/torchinductor/g";
  // A kernel named with "..", one of 300 bytes, a directory name that is not UTF-8.
  const std::string model = c.tmp.path() + "/dumps/m\xff" + graph;
  fs::create_directories(model);
  const std::string long_name = "triton_poi_" + std::string(289, 'x');
  REQUIRE(WriteFileAtomic(model + "/output_code.py",
                          "a = async_compile.triton('triton_poi_a..b_0', '''\n@triton.jit\n"
                          "def triton_(x):\n    return x\n''')\n"
                          "b = async_compile.triton('" +
                              long_name +
                              "', '''\n@triton.jit\ndef triton_(x):\n    return x + 1\n''')\n")
              .ok());
  // A link to nothing, named output_code.py: counted as unreadable.
  fs::create_directories(c.tmp.path() + "/dumps/gone" + graph);
  fs::create_symlink(c.tmp.path() + "/nothing",
                     c.tmp.path() + "/dumps/gone" + graph + "/output_code.py");
  // The same directory twice, once inside the other: each file read once.
  auto r =
      c.Khost({"extract", c.tmp.path() + "/dumps", c.tmp.path() + "/dumps/m\xff", "--out", c.out});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(Contains(r.out, "extracted 2 kernels (2 unique: 2 pointwise) from 1 file of 1 model"));
  CHECK(Contains(r.out, "skipped 1 file (1 unreadable)"));
  const CorpusIndex index = c.Index(c.out);
  REQUIRE(index.kernels.size() == 2);
  CHECK(index.kernels[0].file == "kernels/triton_poi_a__b_0.py");
  CHECK(index.kernels[1].file == "kernels/" + long_name.substr(0, 100) + ".py");
  CHECK(index.kernels[0].model == "m\xef\xbf\xbd");  // JSON holds U+FFFD for the byte
  // The corpus stays usable: sample and export read it.
  CHECK(c.Khost({"sample", c.out, "--n", "2"}).exit_code == 0);
  CHECK(c.Khost({"export", c.out}).exit_code == 0);

  // `extract .` inside a model's directory (here DIR/.) names the model after it.
  Corpus here;
  const std::string resnet = here.tmp.path() + "/resnet50";
  fs::create_directories(resnet + graph);
  REQUIRE(WriteFileAtomic(resnet + graph + "/output_code.py", "@triton.jit\ndef k(x):\n    pass\n")
              .ok());
  auto dot = here.Khost({"extract", resnet + "/.", "--out", here.out});
  REQUIRE_MESSAGE(dot.exit_code == 0, dot.err);
  CHECK(fs::exists(here.out + "/model_output_codes/resnet50.py"));
}

}  // namespace
}  // namespace ktune::host
