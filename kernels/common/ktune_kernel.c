/* See ktune_kernel.h. */
#define _POSIX_C_SOURCE 200809L
#include "ktune_kernel.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* An error line on stderr, after what the kernel printed on stdout (flushed first): the error is
 * then the output's last line, which khost shows of a failed run. */
static void say_error(const char* format, ...) {
  fflush(stdout);
  va_list args;
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
}

static void fail(const char* path, const char* what) {
  say_error("%s: %s\n", path, what);
  exit(2);
}

/* The BIN header (host/tune/tensors.h): magic, u32 dtype, u32 zero, u64 rows, u64 cols. */
static void* load_bin(FILE* f, const char* path, uint32_t dtype, long rows, long cols) {
  unsigned char h[32];
  if (fread(h, 1, sizeof h, f) != sizeof h || memcmp(h, "KTTENSR1", 8) != 0)
    fail(path, "bad header");
  uint32_t type = 0;
  uint64_t r = 0, c = 0;
  for (int i = 0; i < 4; ++i) type |= (uint32_t)h[8 + i] << (8 * i);
  for (int i = 0; i < 8; ++i) {
    r |= (uint64_t)h[16 + i] << (8 * i);
    c |= (uint64_t)h[24 + i] << (8 * i);
  }
  if (type != dtype) fail(path, "has another dtype");
  if (r != (uint64_t)rows || c != (uint64_t)cols) fail(path, "has another shape");
  const size_t n = (size_t)rows * (size_t)cols;
  unsigned char* bytes = malloc(n * 4 + 1);
  if (!bytes || fread(bytes, 4, n, f) != n) fail(path, "is short");
  /* Values are little-endian; so are the targets ktune builds for (x86_64, riscv64, aarch64). */
  return bytes;
}

static void* load_txt(FILE* f, const char* path, int is_float, long rows, long cols) {
  long r, c;
  if (fscanf(f, "%ld %ld", &r, &c) != 2) fail(path, "no 'rows cols' line");
  if (r != rows || c != cols) fail(path, "has another shape");
  const size_t n = (size_t)rows * (size_t)cols;
  void* m = malloc(n * 4 + 1);
  if (!m) fail(path, "out of memory");
  for (size_t i = 0; i < n; ++i) {
    const int ok = is_float ? fscanf(f, "%f", &((float*)m)[i]) : fscanf(f, "%d", &((int32_t*)m)[i]);
    if (ok != 1) fail(path, "is short");
  }
  return m;
}

static void* load(const char* kernel, int idx, long rows, long cols, int is_float) {
  char path[512];
  if (idx < 1) {
    say_error(
        "%s: tensor index %d: test data is numbered from 1 (the spec's inputs, then its "
        "outputs), as the seed numbers it\n",
        kernel, idx);
    exit(2);
  }
  /* A tune of several problem shapes gives each shape's directory (khost tune --shapes). */
  char dir[384];
  const char* given = getenv("KTUNE_TEST_DATA");
  const int n = given && *given ? snprintf(dir, sizeof dir, "%s", given)
                                : snprintf(dir, sizeof dir, "%s/run/test_data", kernel);
  if (n < 0 || (size_t)n >= sizeof dir) {
    say_error("%s: the test data directory's path is longer than %zu bytes\n", kernel,
              sizeof dir - 1);
    exit(2);
  }
  snprintf(path, sizeof path, "%s/matrix_%ldx%ld_%d.bin", dir, rows, cols, idx);
  FILE* f = fopen(path, "rb");
  void* m = NULL;
  if (f) {
    m = load_bin(f, path, is_float ? 0 : 1, rows, cols);
  } else {
    snprintf(path, sizeof path, "%s/matrix_%ldx%ld_%d.txt", dir, rows, cols, idx);
    f = fopen(path, "r");
    if (!f) {
      say_error("%s: %s\n", path, strerror(errno));
      exit(2);
    }
    m = load_txt(f, path, is_float, rows, cols);
  }
  fclose(f);
  return m;
}

float* kt_load_f32(const char* kernel, int idx, long rows, long cols) {
  return load(kernel, idx, rows, cols, 1);
}

int32_t* kt_load_i32(const char* kernel, int idx, long rows, long cols) {
  return load(kernel, idx, rows, cols, 0);
}

void kt_parse_shape(int argc, char** argv, int count, long* values, const char* usage) {
  const char* s = argc > 1 ? argv[1] : "";
  for (int i = 0; i < count; ++i) {
    char* end;
    values[i] = strtol(s, &end, 10);
    if (end == s || values[i] < 0 || *end != (i + 1 < count ? 'x' : '\0')) {
      say_error("usage: %s %s\n", argv[0], usage);
      exit(2);
    }
    s = end + 1;
  }
}

double kt_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void kt_report_time(double seconds_per_run) {
  printf("Running C Kernel Average Time: %g s\n", seconds_per_run);
}

int kt_check_f32(const char* kernel, int output, int idx, const float* out, long rows, long cols) {
  float* golden = kt_load_f32(kernel, idx, rows, cols);
  const double atol = ktune_atol[output], rtol = ktune_rtol[output];
  int ok = 1;
  for (long i = 0; i < rows * cols && ok; ++i) {
    const double want = golden[i], got = out[i];
    if (!(fabs(got - want) <= atol + rtol * fabs(want))) {
      say_error("mismatch at row %ld col %ld: %.9g, golden %.9g (atol %g, rtol %g)\n", i / cols,
                i % cols, got, want, atol, rtol);
      ok = 0;
    }
  }
  free(golden);
  puts(ok ? "out OK" : "out NOT OK");
  return ok ? 0 : 1;
}
