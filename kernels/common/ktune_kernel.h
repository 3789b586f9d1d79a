/* What every example kernel's main shares: reading the test data `khost tune` writes, timing the
 * kernel in the seed's words, and checking an output against its golden file.
 *
 * Test data lives at <kernel>/run/test_data/matrix_<rows>x<cols>_<idx>.{bin,txt}, relative to the
 * directory the variant runs in (the bundle root on the agent; --root for `khost tune --check`),
 * or in the directory the KTUNE_TEST_DATA environment variable names (each shape's own, when
 * `khost tune --shapes` tunes several). idx counts from 1 as the seed's does: the spec's inputs in
 * order, then its outputs (matmul: A 1, B 2, golden C 3). Formats: host/tune/tensors.h.
 *
 * The tolerances come from the spec's outputs (atol=, rtol=) through the variant's generated
 * constants.c: an element passes when |out - golden| <= atol + rtol * |golden|. */
#ifndef KTUNE_KERNEL_H
#define KTUNE_KERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One per output of the spec, in its order (constants.c). */
extern const double ktune_atol[];
extern const double ktune_rtol[];

/* Reads tensor `idx` (from 1) of `kernel`, which must be rows x cols of float32 (or int32), from
 * its .bin file, else its .txt file; exits with status 2 and a message on stderr when it is
 * missing or has another shape, or when idx is below 1. */
float* kt_load_f32(const char* kernel, int idx, long rows, long cols);
int32_t* kt_load_i32(const char* kernel, int idx, long rows, long cols);

/* Parses argv[1] of the form "AxBxC..." into `count` integers; exits 2 with a usage line when it
 * does not match. */
void kt_parse_shape(int argc, char** argv, int count, long* values, const char* usage);

/* Monotonic time in seconds. */
double kt_now(void);

/* Prints the seed's timing line: "Running C Kernel Average Time: <s> s". */
void kt_report_time(double seconds_per_run);

/* Compares `out` (rows x cols) with golden tensor `idx` (its file's number, from 1) under the
 * tolerances of the spec's output number `output` (from 0: ktune_atol[output]); prints "out OK" or
 * "out NOT OK" (and the first mismatch on stderr). Returns the exit status the variant should end
 * with: 0 when OK, 1 when not. */
int kt_check_f32(const char* kernel, int output, int idx, const float* out, long rows, long cols);

#ifdef __cplusplus
}
#endif

#endif
