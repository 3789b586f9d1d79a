/* roofline_flops_kernel: the peak floating-point rate of one instruction stream (khost roofline,
 * docs/ROOFLINE.md). CHAINS independent multiply-add chains, acc = acc * m + a, ITERS times each,
 * in PREC-bit floats: scalars (WIDTH 0) or vectors of WIDTH bytes (the GNU vector extension; on
 * RVV built with -mrvv-vector-bits=zvl a vector of WIDTH bytes is one register group of LMUL =
 * WIDTH * 8 / VLEN). The chains are independent so that the multiply-add's latency is hidden:
 * what is measured is its throughput.
 *
 * Work per call, as roofline_flops.kspec counts it: 2 * CHAINS * ITERS * LANES operations,
 * LANES = WIDTH * 8 / PREC (1 for scalars). With m = -1 and a = 1 each chain alternates exactly
 * between its start c and 1 - c, so main can check the result (a checksum that no rounding
 * disturbs).
 *
 * The loop over ITERS runs four iterations a pass, so that its own count and branch are one
 * instruction pair in 4 * CHAINS multiply-adds, not in CHAINS: on an Intel core they otherwise
 * took some of the multiply-add ports' slots (8 AVX2 chains, fp32: 110 to 114 GFLOP/s, unrolled
 * 117 to 124, likwid-bench's peakflops_sp_avx_fma 124 to 129 on the same core). */
#include "roofline_flops.h"

#if defined(__x86_64__)
/* What this x86-64 core's widest multiply-add is: AVX2 with FMA (main checks the CPU has it). */
__attribute__((target("avx2,fma")))
#endif
void roofline_flops_kernel(vec* acc, real m, real a, long iters) {
  vec r[CHAINS];
  for (int c = 0; c < CHAINS; ++c) r[c] = acc[c];
#pragma GCC unroll 4
  for (long i = 0; i < iters; ++i) {
#pragma GCC unroll 12 /* the most CHAINS is; gcc expands no macro here */
    for (int c = 0; c < CHAINS; ++c) r[c] = r[c] * m + a;
  }
  for (int c = 0; c < CHAINS; ++c) acc[c] = r[c];
}
