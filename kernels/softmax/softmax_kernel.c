/* softmax_kernel: Y[r, :] = exp(X[r, :] - max) / sum, float32, row-major, ROWS x COLS.
 *
 * Three passes per row (max, exp and sum, scale), each over BLOCK_SIZE_N-column chunks into
 * per-lane accumulators, so the inner loops have a fixed length and no float reduction in the
 * loop: clang vectorizes them without -ffast-math (vsetvli on RVV). exp is a polynomial that
 * vectorizes, unlike a call to expf. BLOCK_SIZE_M rows share each chunk loop. */
#include <stdint.h>
#include <string.h>

#ifndef BLOCK_SIZE_N
#error "BLOCK_SIZE_N comes from khost tune (-DBLOCK_SIZE_N=...)"
#endif

/* exp(x) for x <= 0 to about 2e-7 relative: x = n ln2 + r with |r| <= ln2/2 (ln2 split in two
 * for accuracy), exp(r) by its degree-6 Taylor polynomial, 2^n from the exponent bits. Below -87
 * the result is clamped to exp(-87) (about 1.6e-38), negligible next to a row's maximum. */
static inline float exp_nonpositive(float x) {
  x = x < -87.0f ? -87.0f : x;
  const float t = x * 1.44269504088896341f;
  const int n = (int)(t + 256.5f) - 256; /* round to nearest: t + 256.5 > 0 truncates as floor */
  const float nf = (float)n;
  const float r = (x - nf * 0.693359375f) + nf * 2.12194440e-4f;
  float p = 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (n + 127) << 23;
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

static inline int min_int(int a, int b) {
  return a < b ? a : b;
}

void softmax_kernel(const float* restrict x, float* restrict y, int rows, int cols) {
  float mx[BLOCK_SIZE_M][BLOCK_SIZE_N], sum[BLOCK_SIZE_M][BLOCK_SIZE_N];
  float row_max[BLOCK_SIZE_M], row_scale[BLOCK_SIZE_M];
  for (int r0 = 0; r0 < rows; r0 += BLOCK_SIZE_M) {
    const int nr = min_int(BLOCK_SIZE_M, rows - r0);
    for (int i = 0; i < nr; ++i) {
      for (int j = 0; j < BLOCK_SIZE_N; ++j) {
        mx[i][j] = -3.0e38f;
        sum[i][j] = 0.0f;
      }
    }
    for (int c0 = 0; c0 < cols; c0 += BLOCK_SIZE_N) {
      const int nc = min_int(BLOCK_SIZE_N, cols - c0);
      for (int i = 0; i < nr; ++i) {
        const float* xr = x + (long)(r0 + i) * cols + c0;
        for (int j = 0; j < nc; ++j) mx[i][j] = xr[j] > mx[i][j] ? xr[j] : mx[i][j];
      }
    }
    for (int i = 0; i < nr; ++i) {
      float m = mx[i][0];
      for (int j = 1; j < BLOCK_SIZE_N; ++j) m = mx[i][j] > m ? mx[i][j] : m;
      row_max[i] = m;
    }
    for (int c0 = 0; c0 < cols; c0 += BLOCK_SIZE_N) {
      const int nc = min_int(BLOCK_SIZE_N, cols - c0);
      for (int i = 0; i < nr; ++i) {
        const float* xr = x + (long)(r0 + i) * cols + c0;
        float* yr = y + (long)(r0 + i) * cols + c0;
        const float m = row_max[i];
        for (int j = 0; j < nc; ++j) {
          const float e = exp_nonpositive(xr[j] - m);
          yr[j] = e;
          sum[i][j] += e;
        }
      }
    }
    for (int i = 0; i < nr; ++i) {
      float s = 0.0f;
      for (int j = 0; j < BLOCK_SIZE_N; ++j) s += sum[i][j];
      row_scale[i] = 1.0f / s;
    }
    for (int c0 = 0; c0 < cols; c0 += BLOCK_SIZE_N) {
      const int nc = min_int(BLOCK_SIZE_N, cols - c0);
      for (int i = 0; i < nr; ++i) {
        float* yr = y + (long)(r0 + i) * cols + c0;
        const float s = row_scale[i];
        for (int j = 0; j < nc; ++j) yr[j] *= s;
      }
    }
  }
}
