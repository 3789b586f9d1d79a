#!/usr/bin/env bash
# The demo sweep: builds variants of the example matmul kernel (kernels/matmul) for this machine
# in the seed's layout (<demo>/matmul/run/{bin,test_data,configs.json}), then `khost run` measures
# them on a local agentd it starts on loopback, and prints the report.
#
#   scripts/demo.sh [BUILD_DIR]        (default: build; the demo goes to <repo>/demo)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
root=${KTUNE_DEMO_DIR:-$repo/demo}
khost="$build/bin/khost"
cc=${CC:-cc}
M=192 N=192 K=192 RUNS=3

[ -x "$khost" ] || { echo "demo: $khost is missing; run scripts/setup.sh first" >&2; exit 1; }
run="$root/matmul/run"
mkdir -p "$run/bin" "$run/test_data"

# Test data in the seed's TXT format, from a fixed seed so every demo sees the same matrices.
matrix() {  # idx rows cols
  awk -v idx="$1" -v r="$2" -v c="$3" 'BEGIN {
    srand(1234 + idx); print r, c
    for (i = 0; i < r; i++) { line = ""
      for (j = 0; j < c; j++) line = line sprintf("%s%.4f", j ? " " : "", rand() * 2 - 1)
      print line } }' > "$run/test_data/matrix_${2}x${3}_$1.txt"
}
matrix 0 $M $K
matrix 1 $K $N

configs=(4,16,8 8,16,8 16,16,16 32,32,16 64,64,32 8,64,8 64,8,8 128,128,64)
{
  echo '{"variants": ['
  sep=""
  for cfg in "${configs[@]}"; do
    IFS=, read -r bm bn bk <<<"$cfg"
    name="matmul_${bm}_${bn}_${bk}_static_O2.elf"
    "$cc" -O2 -static -DBLOCK_SIZE_M="$bm" -DBLOCK_SIZE_N="$bn" -DBLOCK_SIZE_K="$bk" \
      -o "$run/bin/$name" "$repo/kernels/matmul/matmul.c" -lm
    printf '%s  {"BLOCK_SIZE_M": %s, "BLOCK_SIZE_N": %s, "BLOCK_SIZE_K": %s, "elf_path": "matmul/run/bin/%s", "args": ["%sx%sx%sx%s"]}' \
      "$sep" "$bm" "$bn" "$bk" "$name" $M $N $K $RUNS
    sep=$',\n'
  done
  printf '\n], "perf_files": {"stat": "matmul/run/perf_stats.csv"}}\n'
} > "$run/configs.json"
echo "demo: built ${#configs[@]} matmul variants in $run"

"$khost" run matmul --root "$root" --reps 5 --warmup 1
