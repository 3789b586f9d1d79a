/* How a program picks matmul's configuration for a problem shape from the table that
 * `khost tune matmul --apply-best` writes beside the spec after a run of several shapes
 * (matmul_dispatch.h; docs/KSPEC.md, "Several shapes"):
 *
 *   cc -I kernels/matmul -o dispatch_example kernels/matmul/dispatch_example.c
 *   ./dispatch_example 64x64x64     ->  BLOCK_SIZE_M=32 BLOCK_SIZE_N=32 BLOCK_SIZE_K=64
 *
 * A program linking several of matmul's variants would call the one of that configuration. */
#include <stdio.h>
#include <stdlib.h>

#include "matmul_dispatch.h"

int main(int argc, char** argv) {
  long shape[MATMUL_DISPATCH_DIMS];
  const char* at = argc == 2 ? argv[1] : "";
  for (int d = 0; d < MATMUL_DISPATCH_DIMS; ++d) {
    char* end;
    shape[d] = strtol(at, &end, 10);
    if (end == at || (*end != (d + 1 < MATMUL_DISPATCH_DIMS ? 'x' : '\0'))) {
      fprintf(stderr, "usage: %s", argv[0]);
      for (int k = 0; k < MATMUL_DISPATCH_DIMS; ++k) {
        fprintf(stderr, "%s%s", k ? "x" : " ", matmul_dispatch_dims[k]);
      }
      fprintf(stderr, "\n");
      return 2;
    }
    at = end + 1;
  }
  const long* config = matmul_dispatch(shape);
  for (int p = 0; p < MATMUL_DISPATCH_PARAMS; ++p) {
    printf("%s%s=%ld", p ? " " : "", matmul_dispatch_params[p], config[p]);
  }
  printf("\n");
  return 0;
}
