/* roofline_bandwidth_kernel: the bandwidth of the memory level a working set fits in (khost
 * roofline, docs/ROOFLINE.md), in the four streams of STREAM and likwid-bench over 64-bit
 * doubles, SWEEPS times over arrays of N elements:
 *
 *   OP 0 read    s += a[i]                 8 bytes and 1 flop per element
 *   OP 1 write   a[i] = s                  8 bytes
 *   OP 2 copy    b[i] = a[i]               16 bytes
 *   OP 3 triad   a[i] = b[i] + s * c[i]    24 bytes and 2 flops
 *   OP 4 read    as OP 0, each line prefetched PREFETCH_BYTES ahead
 *
 * Read comes in two loops because neither is the faster everywhere: on an Intel core the
 * prefetches cost 10% in L1 and gained 10-55% beyond the caches (docs/BENCHMARKS.md "Roofline").
 * khost roofline keeps the better of the two at each working set as the read ceiling. Where the
 * target has no prefetch instruction (RVV without Zicbop), OP 4 compiles to OP 0's loop.
 *
 * The bytes are those the program moves (STREAM's count; a write-allocate cache reads a line
 * before writing it, which is not counted). The working set is every array the stream touches:
 * N * 8 bytes times 1, 1, 2 or 3. The loops are plain C that the compiler vectorizes (the read's
 * sum in 32 partial sums: -ffast-math is not needed, the partial sums are explicit), aligned and
 * unrolled four times as likwid-bench's are. */
#ifndef OP
#error "OP comes from khost roofline (-DOP=0..4)"
#endif

/* Enough independent partial sums that the adds' latency never limits the loads: 8 vectors of
 * 32 bytes (x86-64 AVX2, RVV at VLEN 256). */
#define PARTIALS 32

/* How far ahead OP 4 prefetches: a 4 KiB page, 64 lines. Measured on that Intel core at 128 MiB
 * and 1 GiB, 2 and 4 KiB did as well as each other, 1 and 8 KiB less well. */
#define PREFETCH_BYTES 4096

#if defined(__x86_64__)
/* The widest loads and stores this x86-64 core has, as likwid-bench's _avx kernels use (main
 * checks the CPU has AVX2). */
__attribute__((target("avx2")))
#endif
double
roofline_bandwidth_kernel(double* restrict a_in, double* restrict b_in, const double* restrict c_in,
                          long n, long sweeps, double s) {
  /* main allocates every array 64-byte aligned, and N is a multiple of 16: the loops need neither
   * a peeled start nor a remainder. */
  double* restrict a = __builtin_assume_aligned(a_in, 64);
  double* restrict b = __builtin_assume_aligned(b_in, 64);
  const double* restrict c = __builtin_assume_aligned(c_in, 64);
  n &= ~15L;
  double part[PARTIALS] = {0};
  for (long k = 0; k < sweeps; ++k) {
#if OP == 0 || OP == 4
    long i = 0;
    for (; i + PARTIALS <= n; i += PARTIALS) {
#if OP == 4
      /* A line is 64 bytes, 8 doubles; a prefetch past the array's end is a hint, not a load. */
      for (int j = 0; j < PARTIALS; j += 8) __builtin_prefetch(a + i + j + PREFETCH_BYTES / 8);
#endif
      for (int j = 0; j < PARTIALS; ++j) part[j] += a[i + j];
    }
    for (int j = 0; i + j < n; ++j) part[j] += a[i + j];
#elif OP == 1
#pragma GCC unroll 4
    for (long i = 0; i < n; ++i) a[i] = s;
#elif OP == 2
#pragma GCC unroll 4
    for (long i = 0; i < n; ++i) b[i] = a[i];
#elif OP == 3
#pragma GCC unroll 4
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
#endif
    /* Keeps the compiler from merging or dropping sweeps: every sweep's stores are seen. */
    __asm__ volatile("" : : "r"(a), "r"(b) : "memory");
  }
  double sum = 0;
  for (int j = 0; j < PARTIALS; ++j) sum += part[j];
  (void)b;
  (void)c;
  return sum;
}
