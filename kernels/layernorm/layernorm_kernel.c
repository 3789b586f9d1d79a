/* layernorm_kernel: Y[r, :] = (X[r, :] - mean) / sqrt(var + eps) * W + B, float32, row-major,
 * ROWS x COLS, population variance, eps 1e-5 (host/tune/references.h kLayernormEpsilon).
 *
 * Two passes per row: sums of x and of (x - shift)^2 over BLOCK_SIZE_N-column chunks into
 * per-lane accumulators (fixed-length inner loops, no float reduction inside, so clang
 * vectorizes them without -ffast-math; the shift, the row's first value, keeps the mean and
 * variance accurate when the values sit far from 0), then the normalisation, also relative to
 * the shift. BLOCK_SIZE_M rows share each chunk loop. */
#include <math.h>

#ifndef BLOCK_SIZE_N
#error "BLOCK_SIZE_N comes from khost tune (-DBLOCK_SIZE_N=...)"
#endif

#define EPS 1e-5f

static inline int min_int(int a, int b) {
  return a < b ? a : b;
}

void layernorm_kernel(const float* restrict x, const float* restrict w, const float* restrict b,
                      float* restrict y, int rows, int cols) {
  float s1[BLOCK_SIZE_M][BLOCK_SIZE_N], s2[BLOCK_SIZE_M][BLOCK_SIZE_N];
  float shift[BLOCK_SIZE_M], mean[BLOCK_SIZE_M], inv_std[BLOCK_SIZE_M];
  for (int r0 = 0; r0 < rows; r0 += BLOCK_SIZE_M) {
    const int nr = min_int(BLOCK_SIZE_M, rows - r0);
    for (int i = 0; i < nr; ++i) {
      shift[i] = x[(long)(r0 + i) * cols];
      for (int j = 0; j < BLOCK_SIZE_N; ++j) s1[i][j] = s2[i][j] = 0.0f;
    }
    for (int c0 = 0; c0 < cols; c0 += BLOCK_SIZE_N) {
      const int nc = min_int(BLOCK_SIZE_N, cols - c0);
      for (int i = 0; i < nr; ++i) {
        const float* xr = x + (long)(r0 + i) * cols + c0;
        const float k = shift[i];
        for (int j = 0; j < nc; ++j) {
          const float d = xr[j] - k;
          s1[i][j] += d;
          s2[i][j] += d * d;
        }
      }
    }
    for (int i = 0; i < nr; ++i) {
      float a = 0.0f, q = 0.0f;
      for (int j = 0; j < BLOCK_SIZE_N; ++j) {
        a += s1[i][j];
        q += s2[i][j];
      }
      const float m = a / (float)cols;
      const float var = q / (float)cols - m * m;
      mean[i] = m; /* relative to the shift: adding it back would lose m's low bits */
      inv_std[i] = 1.0f / sqrtf((var > 0.0f ? var : 0.0f) + EPS);
    }
    for (int c0 = 0; c0 < cols; c0 += BLOCK_SIZE_N) {
      const int nc = min_int(BLOCK_SIZE_N, cols - c0);
      for (int i = 0; i < nr; ++i) {
        const float* xr = x + (long)(r0 + i) * cols + c0;
        float* yr = y + (long)(r0 + i) * cols + c0;
        const float k = shift[i], m = mean[i], s = inv_std[i];
        for (int j = 0; j < nc; ++j) yr[j] = ((xr[j] - k) - m) * s * w[c0 + j] + b[c0 + j];
      }
    }
  }
}
