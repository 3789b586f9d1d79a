// khost tune for real: the shipped kernels and toolchain profiles, real compilers (gcc, clang-19
// for RVV, the riscv64 and aarch64 cross gcc), the variants run under qemu-user with --check,
// the build cache, Triton .llir input, and the bad inputs that must leave earlier outputs alone.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/fs.h"
#include "common/results.h"
#include "host/results/kernel_dir.h"
#include "host/util/subprocess.h"
#include "tests/contains.h"
#include "tests/integration/harness.h"
#include "tests/integration/triton_dirs.h"

namespace ktune::host {
namespace {
namespace fs = std::filesystem;

const std::string kKernels = KTUNE_SOURCE_DIR "/kernels";

struct Tune {
  test::TempDir tmp;
  std::string root = tmp.path() + "/work";
  test::CommandResult Khost(std::vector<std::string> args) {
    return test::RunKhost(args, tmp.path());
  }
  std::string Run(const std::string& kernel) const { return root + "/" + kernel + "/run"; }
  std::string Read(const std::string& path) const {
    Result<std::string> r = ReadFile(path);
    return r.ok() ? *r : "";
  }
  // A copy of the shipped kernels the test may edit.
  std::string CopyKernels() {
    const std::string dir = tmp.path() + "/kernels";
    fs::copy(kKernels, dir, fs::copy_options::recursive);
    return dir;
  }
  void Write(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << text;
  }
  // kernels/<name>/<name>.kspec of a kernel in one main.c: "kernel: <name>\nmain: main.c\n" then
  // `rest`; returns the spec's path.
  std::string OneFileKernel(const std::string& name, const std::string& rest,
                            const std::string& main_c) {
    const std::string dir = tmp.path() + "/kernels/" + name;
    Write(dir + "/" + name + ".kspec", "kernel: " + name + "\nmain: main.c\n" + rest);
    Write(dir + "/main.c", main_c);
    return dir + "/" + name + ".kspec";
  }
  // khost tune of `spec` natively, with `extra` options.
  test::CommandResult TuneNative(const std::string& spec, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"tune", spec, "--root", root, "--toolchain", "native"};
    args.insert(args.end(), extra.begin(), extra.end());
    return Khost(args);
  }
};

using test::Contains;

uint16_t ElfMachine(const std::string& path) {
  Result<std::string> read = ReadFile(path);
  const std::string bytes = read.ok() ? *read : "";
  return bytes.size() > 20 ? static_cast<uint16_t>(static_cast<uint8_t>(bytes[18]) |
                                                   static_cast<uint8_t>(bytes[19]) << 8)
                           : 0;
}

TEST_CASE("tune builds the shipped kernels natively; every variant checks out OK") {
  Tune t;
  for (const std::string kernel : {"matmul", "softmax", "layernorm", "matmul_vec"}) {
    CAPTURE(kernel);
    auto r = t.Khost({"tune", kernel, "--root", t.root, "--toolchain", "native", "--sample", "3",
                      "--seed", "5", "--check"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(Contains(r.out, "built 3, up to date 0, failed 0"));
    CHECK(Contains(r.out, "check: 3 of 3 variants print 'out OK' and exit 0"));
    // configs.json is what khost push/run read, unchanged from the seed's format.
    Result<KernelDir> dir = LoadKernelDir(t.root, kernel);
    REQUIRE_MESSAGE(dir.ok(), dir.status().message());
    REQUIRE(dir->variants.size() == 3);
    for (const KernelVariant& v : dir->variants) {
      CHECK(v.name.rfind(kernel + "_", 0) == 0);
      CHECK(v.name.size() > 18);
      CHECK(v.name.substr(v.name.size() - 16) == "_g_static_O2.elf");
      CHECK(fs::exists(t.root + "/" + v.asm_path));
      CHECK(ElfMachine(t.root + "/" + v.elf_path) == 62);  // EM_X86_64
      CHECK(v.args.size() == 1);
    }
  }
  // The seed's matmul files: two inputs and the golden output in TXT, numbered from 1, and
  // per-variant constants.
  const std::string data = t.Run("matmul") + "/test_data/";
  for (const std::string f :
       {"matrix_192x192_1.txt", "matrix_192x192_2.txt", "matrix_192x192_3.txt"}) {
    CHECK(t.Read(data + f).rfind("192 192\n", 0) == 0);
  }
  CHECK(!fs::exists(data + "matrix_192x192_0.txt"));
  CHECK(fs::exists(t.Run("layernorm") + "/test_data/matrix_1x768_2.txt"));
  Result<KernelDir> dir = LoadKernelDir(t.root, "matmul");
  REQUIRE(dir.ok());
  const KernelVariant& v = dir->variants[0];
  std::string stem = "matmul";
  for (const auto& [name, value] : v.params) stem += "_" + value;
  CHECK(v.name == stem + "_g_static_O2.elf");
  const std::string build = t.Run("matmul") + "/build/native/" + stem;
  const std::string constants = t.Read(build + "/constants.c");
  CHECK(Contains(constants,
                 "const int matmul_" + v.params[0].first + " = " + v.params[0].second + ";"));
  CHECK(Contains(constants, "const int matmul_GROUP_SIZE_M = 8;"));
  const auto blk = nlohmann::json::parse(t.Read(build + "/blk_constants.json"));
  CHECK(blk[v.params[0].first] == std::stoi(v.params[0].second));
  CHECK(blk["GROUP_SIZE_M"] == 8);
  CHECK(v.args == std::vector<std::string>{"192x192x192x3"});
}

TEST_CASE("rvv-clang19 variants are RISC-V ELFs with vector code, checked under qemu-riscv64") {
  Tune t;
  auto r = t.Khost({"tune", "matmul", "--root", t.root, "--sample", "2", "--check", "--shape",
                    "M=40", "--shape", "N=24", "--shape", "K=16"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(Contains(r.out, "tune matmul with rvv-clang19"));
  CHECK(Contains(r.out, "check: 2 of 2 variants print 'out OK' and exit 0 under qemu-riscv64"));
  Result<KernelDir> dir = LoadKernelDir(t.root, "matmul");
  REQUIRE(dir.ok());
  REQUIRE(dir->variants.size() == 2);
  for (const KernelVariant& v : dir->variants) {
    CHECK(v.name.rfind("VL256_matmul_", 0) == 0);
    CHECK(ElfMachine(t.root + "/" + v.elf_path) == 243);  // EM_RISCV
    const std::string dump = t.Read(t.root + "/" + v.asm_path);
    CHECK(Contains(dump, "<matmul_kernel>:"));
    CHECK(Contains(dump, "\tvset"));      // vsetvli / vsetivli: the kernel is vectorized
    CHECK(!Contains(dump, "<printf>:"));  // only the variant's own code, not libc
  }
  CHECK(fs::exists(t.Run("matmul") + "/test_data/matrix_40x16_1.txt"));
  CHECK(dir->variants[0].args == std::vector<std::string>{"40x24x16x3"});
}

TEST_CASE("the riscv64 and aarch64 gcc profiles build variants that check out under qemu") {
  Tune t;
  for (const auto& [toolchain, prefix, machine] :
       {std::tuple<std::string, std::string, int>{"riscv64-gcc12", "RV64GC_", 243},
        {"aarch64-gcc12", "A64_", 183}}) {
    CAPTURE(toolchain);
    auto r = t.Khost({"tune", "softmax", "--root", t.root, "--toolchain", toolchain, "--sample",
                      "1", "--check", "--shape", "ROWS=16"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(Contains(r.out, "check: 1 of 1 variants print 'out OK' and exit 0 under qemu-"));
    Result<KernelDir> dir = LoadKernelDir(t.root, "softmax");
    REQUIRE(dir.ok());
    REQUIRE(dir->variants.size() == 1);
    CHECK(dir->variants[0].name.rfind(prefix + "softmax_", 0) == 0);
    CHECK(ElfMachine(t.root + "/" + dir->variants[0].elf_path) == machine);
  }
}

TEST_CASE("binary test data is what the kernels read when the spec asks for it") {
  Tune t;
  const std::string kernels = t.CopyKernels();
  const std::string spec_path = kernels + "/layernorm/layernorm.kspec";
  t.Write(spec_path, t.Read(spec_path) + "data: bin\n");
  auto r = t.Khost({"tune", "layernorm", "--root", t.root, "--kernels", kernels, "--sample", "1",
                    "--shape", "ROWS=8", "--check"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(Contains(r.out, "check: 1 of 1 variants print 'out OK' and exit 0 under qemu-riscv64"));
  const std::string data = t.Run("layernorm") + "/test_data/";
  CHECK(t.Read(data + "matrix_8x768_1.bin").rfind("KTTENSR1", 0) == 0);
  CHECK(t.Read(data + "matrix_8x768_1.bin").size() == 32 + 8 * 768 * 4);
  CHECK(fs::exists(data + "matrix_1x768_2.bin"));
  CHECK(!fs::exists(data + "matrix_8x768_1.txt"));
  // Back to TXT: the .bin files go, or the kernels would read them first.
  t.Write(spec_path, t.Read(spec_path) + "data: txt\n");
  auto txt = t.Khost({"tune", "layernorm", "--root", t.root, "--kernels", kernels, "--sample", "1",
                      "--shape", "ROWS=8", "--toolchain", "native", "--check"});
  REQUIRE_MESSAGE(txt.exit_code == 0, txt.err);
  CHECK(fs::exists(data + "matrix_8x768_1.txt"));
  CHECK(!fs::exists(data + "matrix_8x768_1.bin"));
}

TEST_CASE("a check that failed and then passes is a pass: old output does not linger") {
  Tune t;
  const std::string dir = t.tmp.path() + "/kernels/flip";
  t.Write(dir + "/flip.kspec", "kernel: flip\nmain: main.c\nparam: P = 1\nshape: N=1\nargs: {N}\n");
  t.Write(dir + "/main.c",
          "#include <stdio.h>\n#include <stdlib.h>\n"
          "int main(int argc, char** argv) {\n"
          "  if (argc > 1 && atoi(argv[1]) == 1) {\n"
          "    for (int i = 0; i < 1000; ++i) puts(\"a long failure message\");\n"
          "    puts(\"out NOT OK\");\n    return 1;\n  }\n"
          "  puts(\"out OK\");\n  return 0;\n}\n");
  const std::vector<std::string> args = {
      "tune", dir + "/flip.kspec", "--root", t.root, "--toolchain", "native", "--check"};
  auto fail = t.Khost(args);
  CHECK(fail.exit_code == 1);
  CHECK(Contains(fail.err, "1 of 1 variants failed their check"));
  std::vector<std::string> pass_args = args;
  pass_args.insert(pass_args.end(), {"--shape", "N=2"});
  auto pass = t.Khost(pass_args);
  CHECK_MESSAGE(pass.exit_code == 0, pass.err);
  CHECK(Contains(pass.out, "built 0, up to date 1, failed 0"));
  CHECK(t.Read(t.Run("flip") + "/build/native/flip_1/check.log") == "out OK\n");
}

TEST_CASE("the CMake toolchain files build with the profiles' compilers and test under emulators") {
  Tune t;
  t.Write(t.tmp.path() + "/p/CMakeLists.txt",
          "cmake_minimum_required(VERSION 3.25)\nproject(p C)\nenable_testing()\n"
          "add_executable(hello hello.c)\nadd_test(NAME hello COMMAND hello)\n"
          "set_tests_properties(hello PROPERTIES PASS_REGULAR_EXPRESSION \"out OK\")\n");
  t.Write(t.tmp.path() + "/p/hello.c",
          "#include <stdio.h>\nint main(void) { puts(\"out OK\"); return 0; }\n");
  for (const auto& [name, machine] : {std::pair<std::string, int>{"rvv-clang19", 243},
                                      {"riscv64-gcc12", 243},
                                      {"aarch64-gcc12", 183},
                                      {"native", 62}}) {
    CAPTURE(name);
    const std::string build = t.tmp.path() + "/b-" + name;
    ToolRun configure =
        RunTool({"cmake", "-S", t.tmp.path() + "/p", "-B", build,
                 "-DCMAKE_TOOLCHAIN_FILE=" KTUNE_SOURCE_DIR "/toolchains/" + name + ".cmake"})
            .value();
    REQUIRE_MESSAGE(configure.exit_code == 0, configure.output);
    ToolRun make = RunTool({"cmake", "--build", build}).value();
    REQUIRE_MESSAGE(make.exit_code == 0, make.output);
    CHECK(ElfMachine(build + "/hello") == machine);
    ToolRun test = RunTool({"ctest", "--test-dir", build, "-V"}).value();
    CHECK_MESSAGE(test.exit_code == 0, test.output);
    if (name != "native") CHECK(Contains(test.output, "Test command: /usr/bin/qemu-"));
  }
}

TEST_CASE("an unchanged variant is not rebuilt; a changed source or flag rebuilds") {
  Tune t;
  const std::string kernels = t.CopyKernels();
  const std::vector<std::string> args = {"tune",      "matmul", "--root",      t.root,
                                         "--kernels", kernels,  "--toolchain", "native",
                                         "--sample",  "3",      "--seed",      "2"};
  auto first = t.Khost(args);
  REQUIRE_MESSAGE(first.exit_code == 0, first.err);
  CHECK(Contains(first.out, "built 3, up to date 0, failed 0"));
  Result<KernelDir> dir = LoadKernelDir(t.root, "matmul");
  REQUIRE(dir.ok());
  const std::string elf = t.root + "/" + dir->variants[0].elf_path;
  const auto mtime = fs::last_write_time(elf);
  const std::string configs = t.Read(t.Run("matmul") + "/configs.json");

  auto again = t.Khost(args);
  REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  CHECK(Contains(again.out, "built 0, up to date 3, failed 0"));
  CHECK(fs::last_write_time(elf) == mtime);
  CHECK(t.Read(t.Run("matmul") + "/configs.json") == configs);

  // A header next to the kernel is part of every variant's key.
  t.Write(kernels + "/common/ktune_kernel.h",
          t.Read(kernels + "/common/ktune_kernel.h") + "/* changed */\n");
  auto header = t.Khost(args);
  REQUIRE_MESSAGE(header.exit_code == 0, header.err);
  CHECK(Contains(header.out, "built 3, up to date 0, failed 0"));

  // A space narrowed to one earlier variant plus a new value: the earlier one stays up to date.
  // So does everything when only the shape changes (it is argv and test data, not the build).
  const Params& p = dir->variants[0].params;
  std::string spec = t.Read(kernels + "/matmul/matmul.kspec");
  for (size_t i = 0; i < 3; ++i) {
    const size_t at = spec.find("param: " + p[i].first + " = ");
    REQUIRE(at != std::string::npos);
    const size_t eol = spec.find('\n', at);
    spec.replace(at, eol - at,
                 "param: " + p[i].first + " = " + p[i].second + (i == 2 ? " 128" : ""));
  }
  t.Write(kernels + "/matmul/matmul.kspec", spec);
  std::vector<std::string> narrowed = args;
  narrowed.resize(narrowed.size() - 4);  // no --sample: the whole (two-point) space
  auto grid = t.Khost(narrowed);
  REQUIRE_MESSAGE(grid.exit_code == 0, grid.err);
  CHECK(Contains(grid.out, "2 meet the constraints"));
  CHECK(Contains(grid.out, "built 1, up to date 1, failed 0"));
  narrowed.insert(narrowed.end(), {"--shape", "M=64"});
  auto shape = t.Khost(narrowed);
  REQUIRE_MESSAGE(shape.exit_code == 0, shape.err);
  CHECK(Contains(shape.out, "built 0, up to date 2, failed 0"));
  CHECK(fs::exists(t.Run("matmul") + "/test_data/matrix_64x192_1.txt"));
}

TEST_CASE("a variant that fails to compile is reported with the compiler's output; others build") {
  Tune t;
  const std::string spec =
      t.OneFileKernel("boom", "param: BLOCK = 1 2 3 4\nshape: N=4\nargs: {N}\n",
                      "#if BLOCK == 3\n#error block three does not compile\n#endif\n"
                      "#include <stdio.h>\nint main(void) { puts(\"out OK\"); return 0; }\n");
  auto r = t.TuneNative(spec, {"--check"});
  CHECK(r.exit_code == 1);
  CHECK(Contains(r.err, "boom_3_g_static_O2.elf failed to build"));
  CHECK(Contains(r.err, "error: #error block three does not compile"));
  CHECK(Contains(r.err, "1 of 4 variants failed to build"));
  CHECK(Contains(r.out, "built 3, up to date 0, failed 1"));
  CHECK(Contains(r.out, "check: 3 of 3 variants print 'out OK' and exit 0"));
  Result<KernelDir> kd = LoadKernelDir(t.root, "boom");
  REQUIRE(kd.ok());
  CHECK(kd->variants.size() == 3);
  CHECK(Contains(t.Read(t.Run("boom") + "/build/native/boom_3/build.log"), "block three"));
}

// Found by the bad-input campaign (issue 33): a kernel whose golden output was missing failed
// with its time line as the reason (stdout, flushed at exit, came after the error on stderr), and
// a crash under --check read "did not print 'out OK'".
TEST_CASE("a failing variant says why: the missing file it names, the signal that killed it") {
  Tune t;
  auto tune = t.Khost({"tune", "matmul", "--root", t.root, "--toolchain", "native", "--sample", "1",
                       "--shape", "M=16", "--shape", "N=16", "--shape", "K=16"});
  REQUIRE_MESSAGE(tune.exit_code == 0, tune.err);
  fs::remove(t.Run("matmul") + "/test_data/matrix_16x16_3.txt");  // the golden C
  test::AgentProcess agent(t.tmp.path() + "/store");
  auto run = t.Khost({"run", "matmul", "--root", t.root, "--reps", "1", "--warmup", "0", "--agent",
                      agent.address().ToString()});
  CHECK(run.exit_code == 1);
  CHECK(Contains(run.err,
                 "repetition 0 failed: exit:2: matmul/run/test_data/matrix_16x16_3.txt: "
                 "No such file or directory"));
  CHECK(Contains(run.err, "khost run: no variant ran correctly: all 1 failed every repetition"));

  const std::string crash = t.OneFileKernel(
      "crash", "param: B = 1\nshape: N=1\nargs: {N}\n",
      "#include <stdio.h>\n#include <signal.h>\n"
      "int main(void) { puts(\"about to crash\"); fflush(stdout); raise(SIGSEGV); }\n");
  auto check = t.TuneNative(crash, {"--check"});
  CHECK(check.exit_code == 1);
  CHECK(Contains(check.err, "khost tune: check crash_1_g_static_O2.elf: killed by SIGSEGV"));
}

// Found by the bad-input campaign (issue 33): a spec without its kernel_source compiled and
// linked every variant (68 for matmul, 22 s), each failing on the same undefined reference.
TEST_CASE("a spec whose sources define no kernel stops at the first link, naming what is missing") {
  Tune t;
  const std::string spec =
      t.OneFileKernel("lone", "param: BLOCK = 1 2 3 4 5 6 7 8\nshape: N=4\nargs: {N}\n",
                      "void lone_kernel(int n);\nint main(void) { lone_kernel(4); return 0; }\n");
  auto r = t.TuneNative(spec, {"-j", "1"});
  CHECK(r.exit_code == 1);
  CHECK(Contains(r.err, "lone_1_g_static_O2.elf failed to build"));
  CHECK(Contains(r.err, "khost tune: " + spec + ": no source of the spec defines lone_kernel " +
                            "(main: main.c; kernel_source: none): is a 'kernel_source:' line " +
                            "missing? (docs/KSPEC.md; 7 more variants were not built)"));
  CHECK_FALSE(Contains(r.err, "lone_2_g_static_O2.elf failed to build"));
  CHECK(Contains(r.out, "built 0, up to date 0, failed 1, not built 7"));
  // Another symbol missing is a variant's own failure: every variant is still tried.
  const std::string helper =
      t.OneFileKernel("helper", "param: BLOCK = 1 2 3\nshape: N=4\nargs: {N}\n",
                      "void helper(int n);\nint main(void) { helper(4); return 0; }\n");
  auto each = t.TuneNative(helper, {"-j", "1"});
  CHECK(each.exit_code == 1);
  CHECK(Contains(each.out, "built 0, up to date 0, failed 3 in"));
  CHECK(Contains(each.err, "khost tune: 3 of 3 variants failed to build"));
}

TEST_CASE("Triton-CPU configuration directories: host .llir retargeted, launcher and main built") {
  Tune t;
  const std::string triton = t.tmp.path() + "/triton";
  test::MakeTritonConfig(triton + "/matmul_0", 4, 8, 8);
  test::MakeTritonConfig(triton + "/matmul_1", 8, 8, 4);
  test::MakeTritonConfig(triton + "/matmul_2", 4, 8, 8);  // the same configuration again
  REQUIRE(Contains(t.Read(triton + "/matmul_0/matmul_kernel.llir"), "target triple = \"x86_64"));
  // A seed-style C++ main: it sees the launcher and the variant's constants, nothing else.
  const std::string spec_dir = t.tmp.path() + "/spec";
  t.Write(spec_dir + "/matmul.kspec",
          "kernel: matmul\n"
          "main: main.cpp " +
              kKernels +
              "/common/ktune_kernel.c\n"
              "include: " +
              kKernels +
              "/common\n"
              "param: BLOCK_SIZE_M = 4 8\nparam: BLOCK_SIZE_N = 8\nparam: BLOCK_SIZE_K = 4 8\n"
              "shape: M=20 N=16 K=12\nargs: {M}x{N}x{K}x2\n"
              "input: A float32 [M, K] uniform(-1, 1) seed=3\n"
              "input: B float32 [K, N] uniform(-1, 1) seed=4\n"
              "output: C float32 [M, N] atol=1e-5 rtol=1e-5\nreference: matmul\n");
  t.Write(spec_dir + "/main.cpp",
          "#include <cstdio>\n#include <vector>\n#include \"ktune_kernel.h\"\n"
          "extern const int matmul_BLOCK_SIZE_K;\n"
          "void matmul_kernel_launcher(const float*, const float*, float*, int, int, int);\n"
          "int main(int argc, char** argv) {\n"
          "  long s[4];\n  kt_parse_shape(argc, argv, 4, s, \"MxNxKxRUN_COUNT\");\n"
          "  const int M = s[0], N = s[1], K = s[2];\n"
          "  std::printf(\"BLOCK_SIZE_K=%d\\n\", matmul_BLOCK_SIZE_K);\n"
          "  float* a = kt_load_f32(\"matmul\", 1, M, K);\n"
          "  float* b = kt_load_f32(\"matmul\", 2, K, N);\n"
          "  std::vector<float> c(M * N);\n"
          "  for (long r = 0; r < s[3]; ++r) matmul_kernel_launcher(a, b, c.data(), M, N, K);\n"
          "  return kt_check_f32(\"matmul\", 0, 3, c.data(), M, N);\n}\n");
  for (const std::string toolchain : {"rvv-clang19", "native"}) {
    CAPTURE(toolchain);
    auto r = t.Khost({"tune", spec_dir + "/matmul.kspec", "--triton", triton, "--toolchain",
                      toolchain, "--root", t.root, "--check"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(Contains(r.out, "2 variants (2 Triton configurations, 1 duplicate dropped)"));
    CHECK(Contains(r.out, "check: 2 of 2 variants print 'out OK' and exit 0"));
  }
  Result<KernelDir> dir = LoadKernelDir(t.root, "matmul");
  REQUIRE(dir.ok());
  REQUIRE(dir->variants.size() == 2);
  CHECK(dir->variants[1].name == "matmul_8_8_4_g_static_O2.elf");
  // The RVV build got the IR retargeted; the native one (same architecture) kept it as it was.
  CHECK(Contains(t.Read(t.Run("matmul") + "/bin/VL256_matmul_8_8_4_g_static_O2.elf.s"),
                 "<matmul_kernel>:"));
  const std::string build = t.Run("matmul") + "/build/";
  CHECK(Contains(t.Read(build + "rvv-clang19/matmul_4_8_8/matmul_kernel.ll"),
                 "target triple = \"riscv64"));
  CHECK(
      Contains(t.Read(build + "native/matmul_4_8_8/matmul_kernel.ll"), "target triple = \"x86_64"));
  CHECK(Contains(t.Read(build + "native/matmul_4_8_8/build.log"), "-x ir"));
}

TEST_CASE("bad specs and toolchains: one error line naming the file and line; outputs kept") {
  Tune t;
  const std::string kernels = t.CopyKernels();
  const std::string spec_path = kernels + "/matmul/matmul.kspec";
  const std::string good = t.Read(spec_path);
  auto tune = [&](std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"tune",  "matmul",      "--root", t.root,     "--kernels",
                                     kernels, "--toolchain", "native", "--sample", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return t.Khost(args);
  };
  auto first = tune();
  REQUIRE_MESSAGE(first.exit_code == 0, first.err);
  const std::string configs = t.Read(t.Run("matmul") + "/configs.json");
  const std::string data = t.Read(t.Run("matmul") + "/test_data/matrix_192x192_1.txt");
  Result<KernelDir> dir = LoadKernelDir(t.root, "matmul");
  REQUIRE(dir.ok());
  const std::string elf = t.Read(t.root + "/" + dir->variants[0].elf_path);

  auto with_line = [&](const std::string& line) {
    t.Write(spec_path, good + line + "\n");
    return tune();
  };
  const size_t last = std::count(good.begin(), good.end(), '\n') + 1;
  struct Case {
    std::string line, message;
  };
  for (const Case& c : std::vector<Case>{
           {"param BLOCK_SIZE_Q 4",
            spec_path + ":" + std::to_string(last) + ": expected 'directive: value'"},
           {"constraint: BLOCK_SIZE_Q < 4",
            spec_path + ":" + std::to_string(last) +
                ": constraint names unknown parameter BLOCK_SIZE_Q"},
           {"constraint: BLOCK_SIZE_M > 1000", "no configuration of 80 satisfies the constraints"},
           {"input: D float32 [M, Z] uniform(0, 1)", ":" + std::to_string(last) + ": tensor D"},
           {"param: BLOCK_SIZE_X = 1 two", ":" + std::to_string(last) + ": parameter BLOCK_SIZE_X"},
       }) {
    CAPTURE(c.line);
    auto r = with_line(c.line);
    CHECK(r.exit_code == 1);
    REQUIRE(r.ErrLines().size() == 1);
    CHECK(Contains(r.err, "khost tune: "));
    CHECK(Contains(r.err, c.message));
  }
  t.Write(spec_path, good);

  // A toolchain whose compiler is missing names the package that provides it.
  const std::string profile = t.tmp.path() + "/missing.profile";
  t.Write(profile,
          "cc = ktune-missing-cc\ncxx = g++\nobjdump = llvm-objdump-19\n"
          "packages = ktune-missing-cc:gcc-ktune\n");
  auto missing = tune({"--toolchain", profile});
  CHECK(missing.exit_code == 1);
  CHECK(missing.ErrLines().size() == 1);
  CHECK(Contains(missing.err,
                 "needs ktune-missing-cc, which is not in PATH: install the Debian "
                 "package gcc-ktune"));
  auto unknown = tune({"--toolchain", "riscv128"});
  CHECK(unknown.exit_code == 1);
  CHECK(Contains(unknown.err, "no toolchain profile"));
  CHECK(Contains(unknown.err, "known: aarch64-gcc12, native, riscv64-gcc12, rvv-clang19"));
  auto usage = tune({"--sample", "0"});
  CHECK(usage.exit_code == 2);

  // Nothing earlier was touched.
  CHECK(t.Read(t.Run("matmul") + "/configs.json") == configs);
  CHECK(t.Read(t.Run("matmul") + "/test_data/matrix_192x192_1.txt") == data);
  CHECK(t.Read(t.root + "/" + dir->variants[0].elf_path) == elf);
}

TEST_CASE("khost run measures what khost tune built, unchanged") {
  Tune t;
  auto tuned = t.Khost({"tune", "softmax", "--root", t.root, "--toolchain", "native", "--sample",
                        "2", "--shape", "ROWS=64"});
  REQUIRE_MESSAGE(tuned.exit_code == 0, tuned.err);
  test::AgentProcess agent(t.tmp.path() + "/store");
  auto run = t.Khost({"run", "softmax", "--root", t.root, "--reps", "2", "--warmup", "0",
                      "--events", "task-clock", "--agent", agent.address().ToString()});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  CHECK(Contains(run.err, "khost run: 4 rows in"));
  CHECK(Contains(run.out, "2/2"));  // valid repetitions: the kernels printed out OK
  CHECK(fs::exists(t.Run("softmax") + "/perf_stats.csv"));
}

}  // namespace
}  // namespace ktune::host
