/* roofline_bandwidth_kernel: the bandwidth of the memory level a working set fits in (khost
 * roofline, docs/ROOFLINE.md), in the four streams of STREAM and likwid-bench over 64-bit
 * doubles, SWEEPS times over arrays of N elements:
 *
 *   OP 0 read    s += a[i]                 8 bytes and 1 flop per element
 *   OP 1 write   a[i] = s                  8 bytes
 *   OP 2 copy    b[i] = a[i]               16 bytes
 *   OP 3 triad   a[i] = b[i] + s * c[i]    24 bytes and 2 flops
 *
 * The bytes are those the program moves (STREAM's count; a write-allocate cache reads a line
 * before writing it, which is not counted). The working set is every array the stream touches:
 * N * 8 bytes times 1, 1, 2 or 3. The loops are plain C that the compiler vectorizes (the read's
 * sum in 32 partial sums: -ffast-math is not needed, the partial sums are explicit), aligned and
 * unrolled four times as likwid-bench's are. */
#ifndef OP
#error "OP comes from khost roofline (-DOP=0..3)"
#endif

/* Enough independent partial sums that the adds' latency never limits the loads: 8 vectors of
 * 32 bytes (x86-64 AVX2, RVV at VLEN 256). */
#define PARTIALS 32

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
#if OP == 0
    long i = 0;
    for (; i + PARTIALS <= n; i += PARTIALS) {
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
