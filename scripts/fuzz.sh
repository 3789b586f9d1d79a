#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, -DKTUNE_FUZZ=ON with clang-19) in build-fuzz/ and
# runs each for a while on a fresh copy of its seed corpus, then prints per target the
# executions, executions per second and the corpus it ended with. Exits non-zero when any target
# crashed, hung, leaked or failed an invariant; the input that did it is kept and named. See
# docs/FUZZING.md.
#
#   scripts/fuzz.sh [--seconds N] [--target NAME]... [--jobs N] [--opt LEVEL] [--build-only]
#                   [--save-corpus] [-- LIBFUZZER_ARGS]
#
#   --seconds N    how long each target runs (default 15)
#   --target NAME  only this target (repeatable; default: all of tests/fuzz/corpus/*)
#   --jobs N       targets run at once (default: the number of CPUs)
#   --opt LEVEL    the build's -O level (default 1; 0 compiles in half the time and runs slower,
#                  for short runs such as CI's; changing it rebuilds everything)
#   --build-only   configure and build, run nothing
#   --save-corpus  after the runs, keep what each target that passed reached in
#                  tests/fuzz/campaign/<target>.tar.zst: the inputs of the seeds, the archive
#                  and the run that cover every edge any of them covers, fewest first
#                  (libFuzzer -set_cover_merge=1 -use_counters=0), the seeds themselves left out
#   -- ARGS        passed to every target (e.g. -fork=2, -dict=FILE)
#
# Each run works in build-fuzz/fuzz-runs/<target>/: corpus/ (the seeds and the last campaign's
# archive, then what the run added), log, and the inputs that failed (crash-*, leak-*,
# timeout-*, oom-*).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build="$repo/build-fuzz"
seconds=15
jobs=$(nproc)
opt=1
build_only=0
save_corpus=0
targets=()
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --target) targets+=("$2"); shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --opt) opt=$2; shift 2 ;;
    --build-only) build_only=1; shift ;;
    --save-corpus) save_corpus=1; shift ;;
    --) shift; extra=("$@"); break ;;
    *) echo "fuzz: unknown option $1 (see the top of $0)" >&2; exit 2 ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  for dir in "$repo"/tests/fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi
for t in "${targets[@]}"; do
  [ -f "$repo/tests/fuzz/$t.cc" ] || { echo "fuzz: no target $t in tests/fuzz" >&2; exit 2; }
done

# Line tables only: instrumented compiles are slow, and sanitizer reports need no more. A unity
# build, as setup.sh's (CI's fuzz build took 336 s file by file).
flags="-O$opt -gline-tables-only"
CC=clang-19 CXX=clang++-19 cmake -S "$repo" -B "$build" -G Ninja -DKTUNE_FUZZ=ON \
  -DKTUNE_BUILD_TESTS=OFF -DKTUNE_WERROR=ON "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
  -DCMAKE_UNITY_BUILD=ON >/dev/null
build_start=$(date +%s)
cmake --build "$build" --target ktune_fuzzers
echo "fuzz: built in $(($(date +%s) - build_start)) s"
[ $build_only = 1 ] && exit 0

runs="$build/fuzz-runs"
# No stack kept for each allocation (malloc_context_size=0, as afl-fuzz and ClusterFuzz fuzz):
# every error is still caught, and reported with the stack that made it, but not with where the
# memory was allocated or freed. That unwinding took a sixth of the network targets' time
# (docs/FUZZING.md). The reproduce command printed for a failure runs with ASan's defaults, and
# its report has those stacks.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:malloc_context_size=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

run_one() {  # target
  local t=$1 dir="$runs/$1"
  rm -rf "$dir"
  mkdir -p "$dir/corpus"
  cp "$repo/tests/fuzz/corpus/$t"/* "$dir/corpus/"
  # What the last campaign reached beyond the seeds (--save-corpus).
  if [ -f "$repo/tests/fuzz/campaign/$t.tar.zst" ]; then
    tar --zstd -xf "$repo/tests/fuzz/campaign/$t.tar.zst" -C "$dir/corpus"
  fi
  # -timeout: one input taking this long is a hang; -print_final_stats: the figures below.
  (cd "$dir" && "$build/fuzz/$t" -max_total_time="$seconds" -timeout=30 -print_final_stats=1 \
    -artifact_prefix="$dir/" ${extra[@]+"${extra[@]}"} corpus >log 2>&1) && echo 0 >"$dir/rc" ||
    echo $? >"$dir/rc"
}

# The inputs of the seeds, the archive and the run that cover every edge one of them covers, into
# tests/fuzz/campaign/<target>.tar.zst, the seeds left out (they are in the tree as files).
save_corpus() {  # target
  local t=$1 merged="$runs/$1/merged" archive="$repo/tests/fuzz/campaign/$1.tar.zst"
  rm -rf "$merged"
  mkdir -p "$merged" "$repo/tests/fuzz/campaign"
  cp "$repo/tests/fuzz/corpus/$t"/* "$merged/"
  if ! (cd "$runs/$t" && "$build/fuzz/$t" -set_cover_merge=1 -use_counters=0 "$merged" corpus \
    >merge.log 2>&1); then
    echo "    corpus not kept: the merge failed (log: $runs/$t/merge.log)"
    return 0
  fi
  # Each seed by its name, and by its SHA-1 should libFuzzer have copied it (it names inputs so).
  for seed in "$repo/tests/fuzz/corpus/$t"/*; do
    rm -f "$merged/$(basename "$seed")" "$merged/$(sha1sum <"$seed" | cut -d' ' -f1)"
  done
  tar --zstd -cf "$archive" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
    -C "$merged" .
  echo "    corpus kept: $archive ($(find "$merged" -type f | wc -l) inputs)"
}

running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

failed=0
printf '%-18s %12s %10s %8s %20s  %s\n' target executions exec/s edges corpus result
for t in "${targets[@]}"; do
  dir="$runs/$t"
  figure() { sed -n "s/^stat::$1: *//p" "$dir/log" | tail -1; }
  execs=$(figure number_of_executed_units)
  rate=$(figure average_exec_per_sec)
  edges=$(sed -n 's/.*DONE *cov: \([0-9]*\).*/\1/p' "$dir/log" | tail -1)
  files=$(find "$dir/corpus" -type f | wc -l)
  kib=$(find "$dir/corpus" -type f -printf '%s\n' | awk '{s += $1} END {printf "%.0f", s / 1024}')
  found=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' \) | sort)
  result=ok
  if [ "$(cat "$dir/rc")" != 0 ] || [ -n "$found" ]; then
    result="FAILED (exit $(cat "$dir/rc"); log: $dir/log)"
    failed=1
  fi
  printf '%-18s %12s %10s %8s %8s files %5s KiB  %s\n' "$t" "${execs:-?}" "${rate:-?}" \
    "${edges:-?}" "$files" "$kib" "$result"
  # What went wrong, in the report's own words: the failed invariant, the sanitizer's verdict,
  # the escaping exception, or libFuzzer's (timeout, out of memory).
  grep -m2 -E 'invariant failed|runtime error|ERROR: (Address|Leak)Sanitizer|what\(\)|ERROR: libFuzzer: (timeout|out-of-memory)' \
    "$dir/log" | sed 's/^/    /' || true
  for f in $found; do echo "    input kept: $f (reproduce: $build/fuzz/$t $f)"; done
  if [ $save_corpus = 1 ] && [ "$result" = ok ]; then save_corpus "$t"; fi
done
exit $failed
