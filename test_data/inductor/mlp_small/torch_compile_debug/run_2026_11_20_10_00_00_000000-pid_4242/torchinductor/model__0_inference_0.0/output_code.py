# AOT ID: ['0_inference']
from ctypes import c_void_p, c_long
import torch
import math
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels

async_compile = AsyncCompile()


# kernel path: /tmp/torchinductor_user/x4/cx4mlpaddrelu.py
# Source Nodes: [add, relu], Original ATen: [aten.add, aten.relu]
triton_poi_fused_add_relu_0 = async_compile.triton('triton_poi_fused_add_relu_0', '''
import triton
import triton.language as tl
from triton.compiler.compiler import AttrsDescriptor

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math

@triton_heuristics.pointwise(
    size_hints=[4096],
    filename=__file__,
    triton_meta={'signature': {0: '*fp32', 1: '*fp32', 2: 'i32'}, 'device': 0},
    min_elem_per_thread=0
)
@triton.jit
def triton_(in_out_ptr0, in_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 4096
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % 64
    tmp0 = tl.load(in_out_ptr0 + (x2), None)
    tmp1 = tl.load(in_ptr0 + (x0), None, eviction_policy='evict_last')
    tmp2 = tmp0 + tmp1
    tmp3 = tl.full([1], 0, tl.int32)
    tmp4 = triton_helpers.maximum(tmp3, tmp2)
    tl.store(in_out_ptr0 + (x2), tmp4, None)
''', device_str='cuda')


# kernel path: /tmp/torchinductor_user/q7/cq7mlpsoftmax.py
# Source Nodes: [softmax], Original ATen: [aten._softmax]
triton_per_fused__softmax_1 = async_compile.triton('triton_per_fused__softmax_1', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics

@triton_heuristics.persistent_reduction(
    size_hints=[64, 64],
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
)
@triton.jit
def triton_(in_ptr0, out_ptr2, xnumel, rnumel, XBLOCK : tl.constexpr):
    xnumel = 64
    rnumel = 64
    RBLOCK: tl.constexpr = 64
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    rindex = tl.arange(0, RBLOCK)[None, :]
    tmp0 = tl.load(in_ptr0 + (rindex + (64*xindex)), None)
    tmp3 = triton_helpers.max2(tmp0, 1)[:, None]
    tmp5 = tl_math.exp(tmp0 - tmp3)
    tmp8 = tl.sum(tmp5, 1)[:, None]
    tl.store(out_ptr2 + (rindex + (64*xindex)), tmp5 / tmp8, None)
''', device_str='cuda')


# The same add+relu as kernel 0, generated again under another name (deduplicated).
triton_poi_fused_add_relu_2 = async_compile.triton('triton_poi_fused_add_relu_2', '''
import triton
import triton.language as tl
from triton.compiler.compiler import AttrsDescriptor

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math

@triton_heuristics.pointwise(
    size_hints=[4096],
    filename=__file__,
    triton_meta={'signature': {0: '*fp32', 1: '*fp32', 2: 'i32'}, 'device': 0},
    min_elem_per_thread=0
)
@triton.jit
def triton_(in_out_ptr0, in_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 4096
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % 64
    tmp0 = tl.load(in_out_ptr0 + (x2), None)
    tmp1 = tl.load(in_ptr0 + (x0), None, eviction_policy='evict_last')
    tmp2 = tmp0 + tmp1
    tmp3 = tl.full([1], 0, tl.int32)
    tmp4 = triton_helpers.maximum(tmp3, tmp2)
    tl.store(in_out_ptr0 + (x2), tmp4, None)
''', device_str='cuda')


async_compile.wait(globals())
del async_compile

def call(args):
    arg0_1, arg1_1, arg2_1 = args
    args.clear()
    buf0 = empty_strided_cuda((64, 64), (64, 1), torch.float32)
    extern_kernels.mm(arg0_1, arg1_1, out=buf0)
    triton_poi_fused_add_relu_0.run(buf0, arg2_1, 4096, grid=grid(4096), stream=stream0)
    triton_per_fused__softmax_1.run(buf0, buf1, 64, 64, grid=grid(64), stream=stream0)
    return (buf1, )
