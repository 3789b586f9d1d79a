#!/usr/bin/env bash
# khost tune build throughput: 64 variants of the example matmul with a toolchain profile,
# built from scratch with -j1 (the anchor: one compiler at a time, as the seed's build_kernel.py)
# and with one job per core, then the time of a no-op rebuild (every variant up to date).
#
#   bench/tune.sh [BUILD_DIR]     (TOOLCHAIN=rvv-clang19, VARIANTS=64, TRIALS=3)
#
# Each trial builds into fresh roots, -j1 and -jN taking turns; medians over trials. Prints a
# Markdown table.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
TOOLCHAIN=${TOOLCHAIN:-rvv-clang19}
VARIANTS=${VARIANTS:-64}
TRIALS=${TRIALS:-3}
cores=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
tune() {  # root jobs
  "$build/bin/khost" tune matmul --root "$1" --toolchain "$TOOLCHAIN" --sample "$VARIANTS" \
    --seed 1 -j "$2" > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for t in $(seq "$TRIALS"); do
  for jobs in 1 "$cores"; do
    root="$tmp/j$jobs-$t"
    start=$(now); tune "$root" "$jobs"; end=$(now)
    grep -q "built $VARIANTS, up to date 0, failed 0" "$tmp/out" || { cat "$tmp/out" >&2; exit 1; }
    awk -v a="$start" -v b="$end" 'BEGIN { print b - a }' >> "$tmp/full-j$jobs"
  done
  start=$(now); tune "$tmp/j$cores-$t" "$cores"; end=$(now)
  grep -q "built 0, up to date $VARIANTS, failed 0" "$tmp/out" || { cat "$tmp/out" >&2; exit 1; }
  awk -v a="$start" -v b="$end" 'BEGIN { print b - a }' >> "$tmp/noop"
  rm -rf "$tmp/j1-$t" "$tmp/j$cores-$t"
done

j1=$(median < "$tmp/full-j1")
jn=$(median < "$tmp/full-j$cores")
noop=$(median < "$tmp/noop")
printf '| toolchain | variants | -j1 s (anchor) | -j%s s | -j1 variants/min | -j%s variants/min | speed-up | no-op rebuild s |\n' "$cores" "$cores"
printf '|---|---|---|---|---|---|---|---|\n'
awk -v tc="$TOOLCHAIN" -v n="$VARIANTS" -v j1="$j1" -v jn="$jn" -v noop="$noop" 'BEGIN {
  printf "| %s | %d | %.2f | %.2f | %.0f | %.0f | %.2f× | %.3f |\n", tc, n, j1, jn, n * 60 / j1,
    n * 60 / jn, j1 / jn, noop }'
