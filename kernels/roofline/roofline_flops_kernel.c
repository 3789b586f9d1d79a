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
#if PREC == 32
typedef float real;
#elif PREC == 64
typedef double real;
#else
#error "PREC comes from khost roofline (-DPREC=32 or 64)"
#endif

#if WIDTH > 0
typedef real vec __attribute__((vector_size(WIDTH)));
#else
typedef real vec;
#endif

/* As many chains as the vector registers hold beside the multiplier and addend, which clang
 * broadcasts into a register group each: 12 up to LMUL 2 (28 of RVV's 32 registers; 14 of
 * x86-64's 16 AVX2 registers), 6 at LMUL 4 (32), 2 at LMUL 8 (32; 3 spilled).
 * roofline_flops.kspec's flops say the same. 12, not 8: two FMA ports of 4 cycles' latency keep
 * exactly 8 chains busy, with no slack for the loop's own instructions; on an Intel core 8 chains
 * reached 0.96 of likwid-bench's peakflops and 12 reached 0.99 to 1.00 (docs/BENCHMARKS.md
 * "Roofline"). */
#if WIDTH >= 256
#define CHAINS 2
#elif WIDTH >= 128
#define CHAINS 6
#else
#define CHAINS 12
#endif

#if defined(__x86_64__)
/* What this x86-64 core's widest multiply-add is: AVX2 with FMA (main checks the CPU has it). */
__attribute__((target("avx2,fma")))
#endif
void roofline_flops_kernel(vec* acc, real m, real a, long iters) {
  vec r[CHAINS];
  for (int c = 0; c < CHAINS; ++c) r[c] = acc[c];
#pragma GCC unroll 4
  for (long i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; ++c) r[c] = r[c] * m + a;
  }
  for (int c = 0; c < CHAINS; ++c) acc[c] = r[c];
}
