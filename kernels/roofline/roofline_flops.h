/* What roofline_flops' kernel and main share (khost roofline, docs/ROOFLINE.md): the float type
 * of PREC bits, the vector of WIDTH bytes (a scalar at WIDTH 0) and its LANES, how many chains
 * the kernel runs, and the kernel's signature. */
#ifndef ROOFLINE_FLOPS_H
#define ROOFLINE_FLOPS_H

#if PREC == 32
typedef float real;
#elif PREC == 64
typedef double real;
#else
#error "PREC comes from khost roofline (-DPREC=32 or 64)"
#endif

#if WIDTH > 0
typedef real vec __attribute__((vector_size(WIDTH)));
#define LANES (WIDTH * 8 / PREC)
#else
typedef real vec;
#define LANES 1
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

/* Runs acc[c] = acc[c] * m + a, iters times, for each of the CHAINS chains. */
void roofline_flops_kernel(vec* acc, real m, real a, long iters);

#endif
