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
 * sum in 32 partial sums: -ffast-math is not needed, the partial sums are explicit). */
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
roofline_bandwidth_kernel(double* restrict a, double* restrict b, const double* restrict c, long n,
                          long sweeps, double s) {
  double sum = 0;
  for (long k = 0; k < sweeps; ++k) {
#if OP == 0
    double part[PARTIALS] = {0};
    for (long i = 0; i + PARTIALS <= n; i += PARTIALS) {
      for (int j = 0; j < PARTIALS; ++j) part[j] += a[i + j];
    }
    for (int j = 0; j < PARTIALS; ++j) sum += part[j];
#elif OP == 1
    for (long i = 0; i < n; ++i) a[i] = s;
#elif OP == 2
    for (long i = 0; i < n; ++i) b[i] = a[i];
#elif OP == 3
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
#endif
    /* Keeps the compiler from merging or dropping sweeps: every sweep's stores are seen. */
    __asm__ volatile("" : : "r"(a), "r"(b) : "memory");
  }
  (void)b;
  (void)c;
  return sum;
}
