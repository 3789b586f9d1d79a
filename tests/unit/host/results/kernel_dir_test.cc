#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/fs.h"
#include "host/results/kernel_dir.h"
#include "tests/unit/temp_dir.h"

namespace ktune::host {
namespace {

TEST_CASE("the layout's paths: the run directory and the kernel's symbol") {
  CHECK(RunDirUnderRoot("matmul") == "matmul/run");
  CHECK(KernelRunDir("runs", "matmul") == "runs/matmul/run");
  CHECK(KernelRunDir(".", "matmul") == "./matmul/run");
  CHECK(KernelSymbol("matmul") == "matmul_kernel");
}

TEST_CASE("the seed's configs.json gives variants with their parameters in order") {
  auto text = ReadFile(KTUNE_TEST_DATA "/configs/seed_configs.json");
  REQUIRE(text.ok());
  auto dir = ParseConfigsJson(*text, "matmul");
  REQUIRE(dir.ok());
  REQUIRE(dir->variants.size() == 2);
  const KernelVariant& v = dir->variants[0];
  CHECK(v.name == "VL256_matmul_4_16_8_g_static_O2.elf");
  CHECK(v.elf_path == "matmul/run/bin/VL256_matmul_4_16_8_g_static_O2.elf");
  // Path keys are not parameters; parameters keep the file's order.
  CHECK(v.params == Params{{"BLOCK_SIZE_M", "4"}, {"BLOCK_SIZE_N", "16"}, {"BLOCK_SIZE_K", "8"}});
  CHECK(dir->perf_stat_path == "matmul/run/perf_stats.csv");
}

TEST_CASE("args are read; malformed configs are errors that say what is wrong") {
  auto with_args = ParseConfigsJson(
      R"({"variants":[{"elf_path":"k/run/bin/a.elf","args":["64x64x64x10", 3],"NAME":"x"}]})", "k");
  REQUIRE(with_args.ok());
  CHECK(with_args->variants[0].args == std::vector<std::string>{"64x64x64x10", "3"});
  CHECK(with_args->variants[0].params == Params{{"NAME", "x"}});

  auto not_json = ParseConfigsJson("{variants:", "k");
  CHECK(not_json.status().message().find("not valid JSON") != std::string::npos);
  CHECK(ParseConfigsJson("{}", "k").status().message().find("no \"variants\"") !=
        std::string::npos);
  CHECK(ParseConfigsJson(R"({"variants":[]})", "k").status().message().find("no variant") !=
        std::string::npos);
  CHECK(
      ParseConfigsJson(R"({"variants":[{"BLOCK":1}]})", "k").status().message().find("elf_path") !=
      std::string::npos);
  CHECK_FALSE(ParseConfigsJson(R"({"variants":[{"elf_path":"a","P":[1]}]})", "k").ok());
}

TEST_CASE("a variant's shape and test data directory; bad ones are errors") {
  auto shaped =
      ParseConfigsJson(R"({"variants":[{"elf_path":"k/run/bin/a.elf","shape":{"M":64,"K":8},)"
                       R"("test_data":"k/run/test_data/M=64,K=8"}]})",
                       "k");
  REQUIRE(shaped.ok());
  CHECK(shaped->variants[0].shape == Params{{"M", "64"}, {"K", "8"}});
  CHECK(shaped->variants[0].test_data == "k/run/test_data/M=64,K=8");
  CHECK(shaped->variants[0].params.empty());
  auto error = [](const std::string& variant) {
    auto dir =
        ParseConfigsJson(R"({"variants":[{"elf_path":"k/run/bin/a.elf",)" + variant + "}]}", "k");
    REQUIRE_FALSE(dir.ok());
    return dir.status().message();
  };
  CHECK(error(R"("shape":[64])") == "configs.json of k, variant 0: \"shape\" must be an object");
  CHECK(error(R"("shape":{"M":0})") ==
        "configs.json of k, variant 0: shape M must be a positive integer");
  CHECK(error(R"("shape":{"M":"64"})") ==
        "configs.json of k, variant 0: shape M must be a positive integer");
  CHECK(error(R"("shape":{"M;N":1})") ==
        "configs.json of k, variant 0: shape name 'M;N' must be letters, digits and '_'");
  for (const char* bad :
       {R"("test_data":"k/run/test_data/../../x")", R"("test_data":"/etc")",
        R"("test_data":"k/run/test_data/")", R"("test_data":"elsewhere/d")", R"("test_data":3)"}) {
    CHECK(error(bad) ==
          "configs.json of k, variant 0: \"test_data\" must be a directory under "
          "k/run/test_data/");
  }
}

TEST_CASE("a variant's work: flops and bytes, either absent; bad ones are errors") {
  auto dir = ParseConfigsJson(
      R"({"variants":[{"elf_path":"k/run/bin/a.elf","work":{"flops":2e6,"bytes":12288}},)"
      R"({"elf_path":"k/run/bin/b.elf","work":{"bytes":0}},{"elf_path":"k/run/bin/c.elf"}]})",
      "k");
  REQUIRE_MESSAGE(dir.ok(), dir.status().message());
  CHECK(dir->variants[0].work.flops == 2e6);
  CHECK(dir->variants[0].work.bytes == 12288.0);
  CHECK(dir->variants[0].params.empty());  // "work" is not a parameter
  CHECK_FALSE(dir->variants[1].work.flops);
  CHECK(dir->variants[1].work.bytes == 0.0);
  CHECK(dir->variants[2].work.empty());
  auto error = [](const std::string& work) {
    auto d = ParseConfigsJson(
        R"({"variants":[{"elf_path":"k/run/bin/a.elf","work":)" + work + "}]}", "k");
    REQUIRE_FALSE(d.ok());
    return d.status().message();
  };
  CHECK(error("[1]") == "configs.json of k, variant 0: \"work\" must be an object");
  CHECK(error(R"({"flops":-1})") ==
        "configs.json of k, variant 0: \"work\": flops must be a number, 0 or more");
  CHECK(error(R"({"bytes":"8"})") ==
        "configs.json of k, variant 0: \"work\": bytes must be a number, 0 or more");
  CHECK(error(R"({"ops":1})") ==
        "configs.json of k, variant 0: \"work\" has ops; it takes flops and bytes");
}

// Found by tests/fuzz/configs_json: such parameters went into results rows that read back as
// other parameters ("A=B": 1 became A = "B=1") or not at all (';').
TEST_CASE("parameter names and values must survive the results file") {
  for (const char* bad : {R"("A=B": 1)", R"("A;B": 1)", R"("": 1)", R"("A": "x;y")"}) {
    const std::string text =
        std::string(R"({"variants":[{"elf_path":"k/run/bin/a.elf",)") + bad + "}]}";
    auto dir = ParseConfigsJson(text, "k");
    CHECK_FALSE(dir.ok());
    CHECK(dir.status().message().find("variant 0: parameter") != std::string::npos);
  }
  auto fine = ParseConfigsJson(
      R"({"variants":[{"elf_path":"k/run/bin/a.elf","A":"x=y","B":"","C":-1.5}]})", "k");
  REQUIRE(fine.ok());
  const Params& p = fine->variants[0].params;
  CHECK(ParseParams(FormatParams(p)).value() == p);
}

// Found by tests/fuzz/configs_json: a number beyond double's range made the JSON parser throw
// out_of_range, which escaped ParseConfigsJson.
TEST_CASE("a number too large for a double is an error, not an exception") {
  auto dir = ParseConfigsJson(R"({"variants":[{"elf_path":"k/run/bin/a.elf","B":1e400}]})", "k");
  CHECK_FALSE(dir.ok());
  CHECK(dir.status().message().find("not valid JSON") != std::string::npos);
}

TEST_CASE("loading checks the directory and every ELF; the manifest holds data and ELFs") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "ktune_kernel_dir_test";
  fs::remove_all(root);
  CHECK(LoadKernelDir(root.string(), "matmul").status().code() == ErrorCode::kNotFound);
  fs::create_directories(root / "matmul/run/bin");
  fs::create_directories(root / "matmul/run/test_data/sub");
  CHECK(LoadKernelDir(root.string(), "matmul").status().message().find("configs.json") !=
        std::string::npos);
  REQUIRE(WriteFileAtomic((root / "matmul/run/configs.json").string(),
                          R"({"variants":[{"B":1,"elf_path":"matmul/run/bin/a.elf"}]})")
              .ok());
  CHECK(LoadKernelDir(root.string(), "matmul").status().message().find("a.elf does not exist") !=
        std::string::npos);
  REQUIRE(WriteFileAtomic((root / "matmul/run/bin/a.elf").string(), "ELF", 0755).ok());
  REQUIRE(WriteFileAtomic((root / "matmul/run/test_data/sub/m_2x2_0.txt").string(), "2 2\n").ok());
  REQUIRE(WriteFileAtomic((root / "matmul/run/bin/a.elf.s").string(), "asm").ok());
  auto dir = LoadKernelDir(root.string(), "matmul");
  REQUIRE(dir.ok());
  auto m = BuildManifest(*dir);
  REQUIRE(m.ok());
  std::vector<std::string> paths;
  for (const auto& f : m->files) paths.push_back(f.path);
  CHECK(paths == std::vector<std::string>{"matmul/run/bin/a.elf", "matmul/run/configs.json",
                                          "matmul/run/test_data/sub/m_2x2_0.txt"});
  CHECK(m->files[0].mode == 0755);
  CHECK(LoadKernelDir(root.string(), "../x").status().code() == ErrorCode::kInvalidArgument);
  fs::remove_all(root);
}

// Found by the bad-input campaign (issue 33): an elf_path that was a link under bin/ to
// /etc/passwd was followed and the file uploaded; a test data link to a directory inside the root
// put the data under the link's target in the bundle, where the kernel could not find it.
TEST_CASE("a kernel directory is read beneath its root: links out are refused, named") {
  test::UnitTempDir tmp;
  const std::string root = tmp / "root";
  namespace fs = std::filesystem;
  fs::create_directories(root + "/k/run/bin");
  fs::create_directories(tmp / "outside/data");
  REQUIRE(WriteFileAtomic(root + "/k/run/configs.json",
                          R"({"variants":[{"B":1,"elf_path":"k/run/bin/a.elf"}]})")
              .ok());
  REQUIRE(WriteFileAtomic(tmp / "outside/secret", "secret").ok());
  REQUIRE(WriteFileAtomic(tmp / "outside/data/matrix_1x1_1.txt", "1 1\n1\n").ok());
  // The ELF a link out of the root: refused by LoadKernelDir, naming the link.
  fs::create_symlink(tmp / "outside/secret", root + "/k/run/bin/a.elf");
  CHECK(LoadKernelDir(root, "k").status().message() ==
        "variant a.elf: " + root + "/k/run/bin/a.elf is a link to " + (tmp / "outside/secret") +
            ", outside " + root + " (only what resolves inside it is read)");
  // A FIFO there is refused, never opened to block.
  fs::remove(root + "/k/run/bin/a.elf");
  REQUIRE(::mkfifo((root + "/k/run/bin/a.elf").c_str(), 0600) == 0);
  CHECK(LoadKernelDir(root, "k").status().message() ==
        "variant a.elf: " + root + "/k/run/bin/a.elf is not a regular file");
  fs::remove(root + "/k/run/bin/a.elf");
  REQUIRE(WriteFileAtomic(root + "/k/run/bin/a.elf", "ELF", 0755).ok());
  // Test data a link out of the root: the manifest is refused, naming it.
  fs::create_symlink(tmp / "outside/data", root + "/k/run/test_data");
  auto dir = LoadKernelDir(root, "k");
  REQUIRE(dir.ok());
  CHECK(BuildManifest(*dir).status().message() == root + "/k/run/test_data is a link to " +
                                                      (tmp / "outside/data") + ", outside " + root +
                                                      " (only what resolves inside it is read)");
  // A link inside the root: the bundle keeps the layout the kernel reads.
  fs::remove(root + "/k/run/test_data");
  fs::create_directories(root + "/data");
  REQUIRE(WriteFileAtomic(root + "/data/matrix_1x1_1.txt", "1 1\n1\n").ok());
  fs::create_symlink("../../data", root + "/k/run/test_data");
  auto m = BuildManifest(*dir);
  REQUIRE(m.ok());
  std::vector<std::string> paths;
  for (const FileEntry& f : m->files) paths.push_back(f.path);
  CHECK(paths == std::vector<std::string>{"k/run/bin/a.elf", "k/run/configs.json",
                                          "k/run/test_data/matrix_1x1_1.txt"});
  // A run directory that is a link out of the root: nothing is read or written there.
  fs::remove_all(root + "/k");
  fs::create_directories(root + "/k");
  fs::create_symlink(tmp / "outside", root + "/k/run");
  CHECK(LoadKernelDir(root, "k").status().message().starts_with(root + "/k/run is a link to "));
  CHECK_FALSE(RunDirBeneath(root, "k").ok());
  CHECK(RunDirBeneath(tmp / "not-yet", "k").value() == tmp / "not-yet" + "/k/run");
}

}  // namespace
}  // namespace ktune::host
