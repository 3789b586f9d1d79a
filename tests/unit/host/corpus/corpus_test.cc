// The Python reader (host/corpus/pysource.h) and the Triton kernel extractor
// (host/corpus/corpus.h), on output_code.py-shaped text written here.
#include <doctest/doctest.h>

#include <algorithm>

#include "host/corpus/corpus.h"
#include "host/corpus/pysource.h"

namespace ktune::host {
namespace {

// An output_code.py as Inductor writes it: kernel modules in async_compile.triton strings.
const char* const kOutputCode = R"PY(# AOT ID: ['0_inference']
from ctypes import c_void_p
import torch
from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()


# kernel path: /tmp/torchinductor_root/ab/cabc.py
triton_poi_fused_add_0 = async_compile.triton('triton_poi_fused_add_0', '''
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers, triton_heuristics

@triton_heuristics.pointwise(
    size_hints=[1024],
    filename=__file__,
)
@triton.jit
def triton_(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    # a comment: def inside
    x0 = xoffset + tl.arange(0, XBLOCK)[:]
    tl.store(out_ptr0 + (x0), tl.load(in_ptr0 + (x0)) + 1.0, None)
''', device_str='cuda')


triton_red_fused_sum_1 = async_compile.triton('triton_red_fused_sum_1', '''
import triton
import triton.language as tl

@triton_heuristics.reduction(size_hints=[64, 128])
@triton.jit
def triton_(in_ptr0, out_ptr0, xnumel, rnumel, XBLOCK : tl.constexpr, RBLOCK : tl.constexpr):
    def helper(v):
        return v * 2
    doc = """def not_a_kernel():"""
    tl.store(out_ptr0, helper(tl.sum(tl.load(in_ptr0), 0)))
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

def call(args):
    arg0_1, = args
    triton_poi_fused_add_0.run(arg0_1, buf0, 1024, grid=grid(1024), stream=stream0)
    return (buf0, )
)PY";

TEST_CASE("kernels in Inductor's kernel modules: name, kind, span in the file, own imports") {
  auto kernels = ExtractTritonKernels(kOutputCode);
  REQUIRE(kernels.ok());
  REQUIRE(kernels->size() == 2);
  const CorpusKernel& add = (*kernels)[0];
  CHECK(add.name == "triton_poi_fused_add_0");
  CHECK(add.kind == "pointwise");
  CHECK(add.first_line == 14);  // @triton_heuristics.pointwise(
  CHECK(add.last_line == 23);
  CHECK(add.length_lines == 10);
  CHECK(
      add.source.starts_with("import triton\nimport triton.language as tl\nfrom torch._inductor"));
  CHECK(add.source.find("\n\n@triton_heuristics.pointwise(\n") != std::string::npos);
  CHECK(add.source.ends_with("None)\n"));
  const CorpusKernel& sum = (*kernels)[1];
  CHECK(sum.name == "triton_red_fused_sum_1");
  CHECK(sum.kind == "reduction");
  CHECK(sum.first_line == 31);
  CHECK(sum.last_line == 37);
  CHECK(sum.source.find("def helper(v):") != std::string::npos);  // nested helpers stay
  CHECK(sum.source.find("not_a_kernel") != std::string::npos);    // inside a string
}

TEST_CASE("kernels in the file itself: only Triton's decorators, with the imports they use") {
  const std::string src =
      "import os\n"
      "import triton\n"
      "import triton.language as tl\n"
      "from triton import (cdiv,\n"
      "    next_power_of_2)\n"
      "import numpy as np\n"
      "\n"
      "@functools.lru_cache\n"
      "def not_triton():\n"
      "    pass\n"
      "\n"
      "@triton.autotune(configs=[\n"
      "    triton.Config({'BLOCK': 64}),\n"
      "], key=['n'])\n"
      "@triton.jit\n"
      "def my_kernel(x_ptr, n, BLOCK: tl.constexpr):\n"
      "    s = '''\n"
      "def fake():\n"
      "'''\n"
      "    tl.store(x_ptr, cdiv(n, BLOCK))\n"
      "\n"
      "text = '@triton.jit\\ndef also_fake(): pass'\n";
  auto kernels = ExtractTritonKernels(src);
  REQUIRE(kernels.ok());
  REQUIRE(kernels->size() == 1);
  const CorpusKernel& k = (*kernels)[0];
  CHECK(k.name == "my_kernel");
  CHECK(k.kind == "other");
  CHECK(k.first_line == 12);
  CHECK(k.last_line == 20);
  CHECK(k.source ==
        "import triton\nimport triton.language as tl\nfrom triton import (cdiv,\n"
        "    next_power_of_2)\n\n" +
            src.substr(src.find("@triton.autotune"),
                       src.find("\n\ntext") + 1 - src.find("@triton.autotune")));
  CHECK(ExtractTritonKernels("import os\nx = 1\n").value().empty());
  CHECK(ExtractTritonKernels("x = 1\n@triton.jit\n").value().empty());  // no def follows
}

TEST_CASE("imports cut short end (CI's fuzzer hung on 'import a as'), binding what they name") {
  const std::string kernel = "@triton.jit\ndef k(a, b):\n    return a + b\n";
  // The import, and whether it binds a name the kernel uses (b): "x as" binds nothing.
  for (const auto& [imports, needed] :
       {std::pair{"import a as\n", false}, std::pair{"from m import a as\n", false},
        std::pair{"from m import\n", false}, std::pair{"import as b\n", true},
        std::pair{"from m import (x as b, c as)\n", true}}) {
    CAPTURE(imports);
    auto kernels = ExtractTritonKernels(std::string(imports) + "\n" + kernel);
    REQUIRE(kernels.ok());
    REQUIRE(kernels->size() == 1);
    CHECK((*kernels)[0].source == (needed ? std::string(imports) + "\n" : "") + kernel);
  }
}

TEST_CASE("what the extractor cannot follow is an error naming the line, in the file's terms") {
  CHECK(ExtractTritonKernels("a = '''\n").status().message() == "line 1: a string that never ends");
  const auto inner = ExtractTritonKernels(
      "x = 1\nk = async_compile.triton('k', '''\n@triton.jit\ndef k(:\n''')\n");
  REQUIRE_FALSE(inner.ok());
  CHECK(inner.status().message() ==
        "line 4: '(' is never closed (in the kernel source of 'k', which starts on line 2)");
}

TEST_CASE("a kernel module is one kernel: its helpers stay with it, under the module's name") {
  const std::string src =
      "k = async_compile.triton('add_kernel', '''\n"  // the module starts on line 1
      "import triton\n"
      "import triton.language as tl\n"
      "import os\n"
      "@triton.jit\n"
      "def helper(x):\n"
      "    return x + 1\n"
      "\n"
      "@triton.jit\n"
      "def add_kernel(p):\n"
      "    tl.store(p, helper(tl.load(p)))\n"
      "''', device_str='cuda')\n";
  auto kernels = ExtractTritonKernels(src);
  REQUIRE(kernels.ok());
  REQUIRE(kernels->size() == 1);
  const CorpusKernel& k = (*kernels)[0];
  CHECK(k.name == "add_kernel");
  CHECK(k.first_line == 5);
  CHECK(k.last_line == 11);
  CHECK(k.length_lines == 7);
  // All of a module's imports, "import os" too, though the module starts on the file's line 1.
  CHECK(k.source ==
        "import triton\nimport triton.language as tl\nimport os\n\n" +
            src.substr(src.find("@triton.jit"), src.find("''', device") - src.find("@triton.jit")));
}

TEST_CASE("many imports and kernels: each kernel gets exactly the import it uses") {
  // 3,000 of each (each kernel looks the names it uses up, rather than trying every import).
  std::string src;
  for (int i = 0; i < 3000; ++i) src += "import m" + std::to_string(i) + "\n";
  for (int i = 0; i < 3000; ++i) {
    src += "@triton.jit\ndef k" + std::to_string(i) + "(x):\n    return m" + std::to_string(i) +
           ".f(x)\n";
  }
  auto kernels = ExtractTritonKernels(src);
  REQUIRE(kernels.ok());
  REQUIRE(kernels->size() == 3000);
  CHECK((*kernels)[2999].source.starts_with("import m2999\n\n@triton.jit\ndef k2999(x):"));
}

TEST_CASE("kinds from Inductor's names, else its decorators; the same kernel normalizes alike") {
  CHECK(TritonKernelKind("triton_per_fused_0", {}) == "persistent_reduction");
  CHECK(TritonKernelKind("triton_tem_fused_mm_0", {}) == "template");
  CHECK(TritonKernelKind("triton_", {"triton_heuristics.persistent_reduction", "triton.jit"}) ==
        "persistent_reduction");
  CHECK(TritonKernelKind("mine", {"triton.jit"}) == "other");
  const std::string a =
      "@triton.jit\ndef triton_poi_a_0(x):\n    y = x  +  1 # one\n\n    return y\n";
  const std::string b = "@triton.jit\ndef triton_poi_b_7(x):\n    y = x + 1\n    return y\n";
  CHECK(NormalizeKernel(a, "triton_poi_a_0") == NormalizeKernel(b, "triton_"));
  const std::string c = "@triton.jit\ndef triton_poi_b_7(x):\n    y = x + 2\n    return y\n";
  CHECK(NormalizeKernel(b, "triton_poi_b_7") != NormalizeKernel(c, "triton_poi_b_7"));
  // Inductor also writes the name as text, in inductor_meta.
  const std::string meta_a =
      "@triton_heuristics.pointwise(inductor_meta={'kernel_name': 'triton_poi_a_0'})\n"
      "@triton.jit\ndef triton_(x):\n    return x\n";
  std::string meta_b = meta_a;
  meta_b.replace(meta_b.find("triton_poi_a_0"), 14, "triton_poi_b_7");
  CHECK(NormalizeKernel(meta_a, "triton_poi_a_0") == NormalizeKernel(meta_b, "triton_poi_b_7"));
}

TEST_CASE("a file's model: the directory holding torch_compile_debug, else the one given") {
  CHECK(ModelOf("runs", "runs/resnet50/torch_compile_debug/run_1/torchinductor/m/output_code.py") ==
        "resnet50");
  CHECK(ModelOf("runs/bert/", "runs/bert/graph_3/output_code.py") == "bert");
  CHECK(ModelOf("/", "/output_code.py") == "model");
  CHECK(ModelOf(".", "./torch_compile_debug/x/output_code.py") == "model");
}

TEST_CASE("the corpus index: JSON read back the same; CSV one row per kernel; bad shapes named") {
  CorpusIndex index;
  index.sampled_with = "n=2 long_portion=0.5 long_pool=0.3 seed=7";
  index.kernels.push_back({"triton_poi_fused_add_0", "mlp", "a/output_code.py", 14, 23, 10,
                           "pointwise", "ab12", "kernels/triton_poi_fused_add_0.py"});
  index.kernels.push_back({"k, \"quoted\"", "m", "b.py", 1, 2, 2, "other", "cd34", "kernels/k.py"});
  auto back = ParseCorpusIndex(CorpusIndexJson(index));
  REQUIRE(back.ok());
  CHECK(back->sampled_with == index.sampled_with);
  REQUIRE(back->kernels.size() == 2);
  CHECK(back->kernels[1].name == "k, \"quoted\"");
  CHECK(back->kernels[0].first_line == 14);
  CHECK(back->kernels[0].length_lines == 10);
  CHECK(back->kernels[0].file == "kernels/triton_poi_fused_add_0.py");
  const std::string csv = CorpusIndexCsv(index);
  CHECK(
      csv.starts_with("name,model,source_file,first_line,last_line,length_lines,kind,hash,file\n"
                      "triton_poi_fused_add_0,mlp,a/output_code.py,14,23,10,pointwise,ab12,"
                      "kernels/triton_poi_fused_add_0.py\n"));
  CHECK(csv.find("\"k, \"\"quoted\"\"\"") != std::string::npos);
  CHECK(ParseCorpusIndex("[]").status().message() == "not a khost corpus index (schema 1)");
  CHECK(ParseCorpusIndex("{\"schema\": 1, \"kernels\": [{}]}").status().message() ==
        "kernel 0: no name");
  index.kernels[0].file = "../../etc/passwd";
  CHECK(ParseCorpusIndex(CorpusIndexJson(index)).status().message() ==
        "kernel 0: file '../../etc/passwd' is not inside the corpus");
}

TEST_CASE("sampling: long_portion of n from the longest long_pool, reproducible for a seed") {
  std::vector<size_t> lengths;
  for (size_t i = 0; i < 100; ++i) lengths.push_back(i);  // kernel i has i lines
  CorpusSampleOptions o;
  o.n = 10;
  o.long_portion = 0.8;
  o.long_pool = 0.3;
  o.seed = 1;
  const std::vector<size_t> chosen = SampleKernels(lengths, o);
  REQUIRE(chosen.size() == 10);
  CHECK(std::is_sorted(chosen.begin(), chosen.end()));
  CHECK(std::adjacent_find(chosen.begin(), chosen.end()) == chosen.end());
  size_t from_long = 0;
  for (size_t k : chosen) from_long += k >= 70;  // the 30 longest
  CHECK(from_long == 8);
  CHECK(SampleKernels(lengths, o) == chosen);
  // The picks of a seed never change (common/random.h draws the same on every machine).
  CHECK(chosen == std::vector<size_t>{11, 34, 73, 79, 83, 85, 87, 88, 91, 95});
  o.seed = 2;
  CHECK(SampleKernels(lengths, o) != chosen);
  CHECK(SampleKernels(lengths, o) == std::vector<size_t>{11, 57, 74, 81, 82, 83, 89, 92, 95, 96});
  // A pool short of its share: the other makes up the difference; n over the count takes all.
  o.long_portion = 1.0;
  o.n = 40;
  const std::vector<size_t> all_long = SampleKernels(lengths, o);
  CHECK(all_long.size() == 40);
  CHECK(std::count_if(all_long.begin(), all_long.end(), [](size_t k) { return k >= 70; }) == 30);
  o.n = 1000;
  CHECK(SampleKernels(lengths, o).size() == 100);
  CHECK(SampleKernels({}, o).empty());
}

TEST_CASE("text is UTF-8 without NUL bytes; the first byte that is not is found") {
  CHECK_FALSE(FirstNonTextByte("plain ascii\n").has_value());
  CHECK_FALSE(FirstNonTextByte("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80").has_value());
  CHECK(FirstNonTextByte(std::string("ab\0c", 4)) == 2u);
  CHECK(FirstNonTextByte("ab\xff") == 2u);
  CHECK(FirstNonTextByte("\xc0\xaf") == 0u);          // overlong '/'
  CHECK(FirstNonTextByte("x\xed\xa0\x80") == 1u);     // a surrogate
  CHECK(FirstNonTextByte("\xf4\x90\x80\x80") == 0u);  // past U+10FFFF
  CHECK(FirstNonTextByte("\xe2\x82") == 0u);          // cut short
}

}  // namespace
}  // namespace ktune::host
