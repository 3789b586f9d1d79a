# AOT ID: ['1_inference']
# A user's own Triton kernel copied into the graph, with an autotune decorator, a nested helper
# and strings that hold "def" and decorators but are not kernels.
import torch
import triton
import triton.language as tl
from torch._inductor.async_compile import AsyncCompile

async_compile = AsyncCompile()

NOTE = """
@triton.jit
def this_is_text_not_a_kernel(x):
    pass
"""


@triton.autotune(
    configs=[
        triton.Config({'BLOCK_M': 32, 'BLOCK_N': 32}, num_warps=4),
        triton.Config({'BLOCK_M': 64, 'BLOCK_N': 32}, num_warps=8),
    ],
    key=['M', 'N'],
)
@triton.jit
def scaled_scores(q_ptr, k_ptr, out_ptr, M, N, scale,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    def tile(ptr, rows, cols):
        return tl.load(ptr + rows[:, None] * N + cols[None, :])
    doc = 'def inner(): pass'
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    s = tile(q_ptr, rm, rn) * tile(k_ptr, rm, rn) * scale
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], s)


# kernel path: /tmp/torchinductor_user/r2/cr2attnsum.py
triton_red_fused_sum_0 = async_compile.triton('triton_red_fused_sum_0', '''
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers, triton_heuristics

@triton_heuristics.reduction(
    size_hints=[128, 2048],
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
)
@triton.jit
def triton_(in_ptr0, out_ptr0, xnumel, rnumel, XBLOCK : tl.constexpr, RBLOCK : tl.constexpr):
    xnumel = 128
    rnumel = 2048
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    rbase = tl.arange(0, RBLOCK)[None, :]
    _tmp2 = tl.full([XBLOCK, RBLOCK], 0, tl.float32)
    for roffset in range(0, rnumel, RBLOCK):
        rindex = roffset + rbase
        tmp0 = tl.load(in_ptr0 + (rindex + (2048*xindex)), None, eviction_policy='evict_first')
        _tmp2 = _tmp2 + tl.broadcast_to(tmp0, [XBLOCK, RBLOCK])
    tl.store(out_ptr0 + (xindex), tl.sum(_tmp2, 1)[:, None], None)
''', device_str='cuda')


async_compile.wait(globals())
del async_compile
