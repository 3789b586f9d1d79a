/* The softmax variant's main:
 *
 *   <prefix>softmax_<BM>_<BN><suffix>.elf ROWSxCOLSxRUN_COUNT
 *
 * reads X (test data _1), runs the kernel RUN_COUNT times, prints the seed's timing line, then
 * checks Y against the golden _2: "out OK" (exit 0) or "out NOT OK" (exit 1). */
#include <stdio.h>
#include <stdlib.h>

#include "ktune_kernel.h"

extern const int softmax_BLOCK_SIZE_M, softmax_BLOCK_SIZE_N;

void softmax_kernel(const float* restrict x, float* restrict y, int rows, int cols);

int main(int argc, char** argv) {
  long s[3];
  kt_parse_shape(argc, argv, 3, s, "ROWSxCOLSxRUN_COUNT");
  const int rows = (int)s[0], cols = (int)s[1], runs = (int)s[2];
  printf("softmax %dx%d, BLOCK_SIZE_M=%d BLOCK_SIZE_N=%d\n", rows, cols, softmax_BLOCK_SIZE_M,
         softmax_BLOCK_SIZE_N);
  float* x = kt_load_f32("softmax", 1, rows, cols);
  float* y = malloc(sizeof(float) * (size_t)rows * (size_t)cols + 1);
  const double start = kt_now();
  for (int r = 0; r < runs; ++r) softmax_kernel(x, y, rows, cols);
  kt_report_time(runs > 0 ? (kt_now() - start) / runs : 0);
  return kt_check_f32("softmax", 0, 2, y, rows, cols);
}
