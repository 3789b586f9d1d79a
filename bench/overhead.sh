#!/usr/bin/env bash
# Per-measured-run overhead of agentd against perf, on /bin/true and on a ~10 ms kernel.
#
#   bench/overhead.sh [BUILD_DIR]      (N runs per sweep, default 50; TRIALS sweeps, default 5)
#
# Methods, each timed as a whole sweep of N runs, per-run cost = sweep time / N, median of TRIALS
# (the methods take turns within each trial, so drift of the machine affects all alike):
#   bare       posix_spawn + waitpid in a C loop (the anchor: the workload and its exec)
#   perf -r    perf stat -r N -e task-clock WORKLOAD
#   perf each  N separate `perf stat -e task-clock WORKLOAD` calls from a shell loop (the seed's way)
#   agentd     khost run --reps N --warmup 0 --events task-clock against a running agentd
#              (includes khost's start, the push check, and the per-row fsync on both sides)
# Overhead = per-run cost - bare's per-run cost. Prints a Markdown table.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
N=${N:-50}
TRIALS=${TRIALS:-7}
tmp=$(mktemp -d)
trap 'kill $agent_pid 2>/dev/null || true; rm -rf "$tmp"' EXIT

cc -O2 -o "$tmp/spawn_loop" "$repo/bench/spawn_loop.c"
ok_elf="$build/tests/elves/ok.elf"
[ -x "$ok_elf" ] || { echo "bench: $ok_elf missing; build first" >&2; exit 1; }

# The two workloads as one-variant kernels in the seed's layout.
make_kernel() {  # name elf args-json
  mkdir -p "$tmp/root/$1/run/bin"
  cp "$2" "$tmp/root/$1/run/bin/$1.elf"
  printf '{"variants": [{"elf_path": "%s/run/bin/%s.elf", "args": %s}]}\n' "$1" "$1" "$3" \
    > "$tmp/root/$1/run/configs.json"
}
make_kernel true /bin/true '[]'
make_kernel k10 "$ok_elf" '["", "10"]'

"$build/bin/agentd" --listen 127.0.0.1:0 --store "$tmp/store" --log-level error > "$tmp/agent.out" &
agent_pid=$!
for _ in $(seq 50); do grep -q listening "$tmp/agent.out" 2>/dev/null && break; sleep 0.1; done
addr=$(sed -n 's/.* listening on \([^ ]*\) .*/\1/p' "$tmp/agent.out")

now() { date +%s%N; }
sweep() {  # method workload -> nanoseconds for N runs
  local method=$1 w=$2 elf args t0
  elf="$tmp/root/$w/run/bin/$w.elf"
  if [ "$w" = k10 ]; then args=("" 10); else args=(); fi
  t0=$(now)
  case $method in
    bare) (cd "$tmp/root" && "$tmp/spawn_loop" "$N" "$elf" "${args[@]}") ;;
    perf_r) (cd "$tmp/root" && perf stat -r "$N" -x, -e task-clock "$elf" "${args[@]}") ;;
    perf_each) (cd "$tmp/root" && for _ in $(seq "$N"); do
                  perf stat -x, -e task-clock "$elf" "${args[@]}"; done) ;;
    agentd) "$build/bin/khost" run "$w" --root "$tmp/root" --agent "$addr" --reps "$N" \
              --warmup 0 --events task-clock ;;
  esac > /dev/null 2>&1
  echo $(( $(now) - t0 ))
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
methods=(bare perf_r perf_each agentd)

echo "| workload | bare µs/run | perf -r µs/run | perf each µs/run | agentd µs/run | agentd overhead µs | perf -r overhead µs | perf each overhead µs | agentd / perf -r | agentd / perf each |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for w in true k10; do
  for _ in $(seq "$TRIALS"); do
    for m in "${methods[@]}"; do sweep "$m" "$w" >> "$tmp/$m.$w"; done
  done
  per_run_us() { median < "$tmp/$1.$w" | awk -v n="$N" '{printf "%.1f", $1 / n / 1000}'; }
  b=$(per_run_us bare); r=$(per_run_us perf_r); e=$(per_run_us perf_each); a=$(per_run_us agentd)
  awk -v w="$w" -v b="$b" -v r="$r" -v e="$e" -v a="$a" 'BEGIN {
    name = (w == "true") ? "/bin/true" : "10 ms kernel (ok.elf)"
    printf "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.3f |\n",
      name, b, r, e, a, a - b, r - b, e - b, (a - b) / (r - b), (a - b) / (e - b) }'
done
