#!/usr/bin/env bash
# P7 (issue 21): how much the time of one ELF varies from run to run as each tool measures it:
# the coefficient of variation (standard deviation / mean) of its wall time over RUNS
# repetitions, for ktune (`khost run --reps RUNS --warmup 1 --cpu CPU`), `perf stat -r RUNS` and
# `hyperfine --runs RUNS --warmup 1 -N` (both under `taskset -c CPU`, perf after one unmeasured
# run), all on the same ELF (bench/fixed_work.c, WORK thousand iterations). TRIALS trials, the
# tools taking turns within each in a shuffled order (on a VM the machine's own speed drifts
# from second to second, and a fixed order would give one tool the same place in every drift);
# the table gives each tool's median CV over the trials and its ratio to the better of perf's and
# hyperfine's. A single trial's CV is noisy (from 0.6% to 20% for every tool in a noisy hour),
# so the median wants many trials: at 15, two runs minutes apart gave ktune 0.69x and 3.50x.
#
# perf prints the standard deviation of the mean ("+- x%" = s / sqrt(n) / mean), so its CV is
# x * sqrt(RUNS); ktune's and hyperfine's come from their per-run times (sample standard
# deviation, n - 1).
#
# AGENT2: another build directory, whose agentd is measured beside as a fourth tool (ktune2), the
# same khost asking it.
#
#   bench/variability.sh [BUILD_DIR]     (RUNS=20, TRIALS=40, WORK=5000, CPU=1, AGENT2)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
RUNS=${RUNS:-20}
TRIALS=${TRIALS:-40}
WORK=${WORK:-5000}
CPU=${CPU:-1}
command -v hyperfine > /dev/null || { echo "bench: hyperfine missing (scripts/setup.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
chmod o+x "$tmp"  # agentd as root runs kernels as nobody
agent_pid= agent2_pid=
trap 'kill $agent_pid $agent2_pid 2>/dev/null || true; rm -rf "$tmp"' EXIT

cc -O2 -o "$tmp/fixed_work" "$repo/bench/fixed_work.c"
mkdir -p "$tmp/root/one/run/bin"
cp "$tmp/fixed_work" "$tmp/root/one/run/bin/one.elf"
echo "{\"variants\": [{\"elf_path\": \"one/run/bin/one.elf\", \"args\": [\"$WORK\"]}]}" \
  > "$tmp/root/one/run/configs.json"
elf="$tmp/root/one/run/bin/one.elf"

listening_at() {  # agentd's output file -> its address, once it listens
  for _ in $(seq 50); do grep -q listening "$1" 2>/dev/null && break; sleep 0.1; done
  sed -n 's/.* listening on \([^ ]*\) .*/\1/p' "$1"
}
"$build/bin/agentd" --listen 127.0.0.1:0 --store "$tmp/store" --log-level error > "$tmp/agent.out" &
agent_pid=$!
addr=$(listening_at "$tmp/agent.out")
tools=(ktune perf hyperfine)
if [ -n "${AGENT2:-}" ]; then
  "$AGENT2/bin/agentd" --listen 127.0.0.1:0 --store "$tmp/store2" --log-level error \
    > "$tmp/agent2.out" &
  agent2_pid=$!
  addr2=$(listening_at "$tmp/agent2.out")
  [ -n "$addr2" ] || { echo "bench: AGENT2's agentd did not start" >&2; exit 1; }
  tools+=(ktune2)
fi

cv() {  # values, one per line -> CV in percent
  awk '{x[NR] = $1; s += $1} END {m = s / NR; for (i in x) v += (x[i] - m) ^ 2;
       printf "%.3f\n", 100 * sqrt(v / (NR - 1)) / m}'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

measure() {  # tool -> CV in percent
  case $1 in
    ktune | ktune2)
      rm -rf "$tmp/root/one/run/results"
      local at=$addr
      [ "$1" = ktune2 ] && at=$addr2
      "$build/bin/khost" run one --root "$tmp/root" --agent "$at" --reps "$RUNS" --warmup 1 \
        --cpu "$CPU" --events task-clock ${KTUNE_OPTS:-} > /dev/null 2>&1
      # The columns by their header's names (common/results.h; they moved with the schema).
      awk -F, 'FNR == 1 {for (i = 1; i <= NF; ++i) col[$i] = i; next}
               $col["name"] == "wall-time" && $col["valid"] == 1 {print $col["value"]}' \
        "$tmp/root/one/run/results/"*.csv | cv ;;
    perf)
      taskset -c "$CPU" "$elf" "$WORK"
      taskset -c "$CPU" perf stat -r "$RUNS" -e task-clock "$elf" "$WORK" 2>&1 >/dev/null |
        sed -n 's/.*seconds time elapsed *( +- *\([0-9.]*\)% ).*/\1/p' |
        awk -v n="$RUNS" '{printf "%.3f\n", $1 * sqrt(n)}' ;;
    hyperfine)
      taskset -c "$CPU" hyperfine -N --runs "$RUNS" --warmup 1 --export-json "$tmp/h.json" \
        "$elf $WORK" > /dev/null 2>&1
      /usr/bin/python3 -c 'import json,sys; print("\n".join(map(str, json.load(open(sys.argv[1]))["results"][0]["times"])))' \
        "$tmp/h.json" | cv ;;
  esac
}

for _ in $(seq "$TRIALS"); do
  for t in $(printf '%s\n' "${tools[@]}" | shuf); do measure "$t" >> "$tmp/$t.cv"; done
done
k=$(median < "$tmp/ktune.cv"); p=$(median < "$tmp/perf.cv"); h=$(median < "$tmp/hyperfine.cv")
echo "| tool | median CV % | CV % per trial | ÷ the better of perf's and hyperfine's |"
echo "|---|---|---|---|"
for t in "${tools[@]}"; do
  m=$(median < "$tmp/$t.cv")
  awk -v t="$t" -v m="$m" -v p="$p" -v h="$h" -v all="$(paste -sd' ' "$tmp/$t.cv")" 'BEGIN {
    best = (p < h) ? p : h
    name = (t == "ktune") ? "ktune (khost run --cpu)" : (t == "ktune2") ? "ktune, agentd of AGENT2" \
         : (t == "perf") ? "perf stat -r" : "hyperfine -N"
    printf "| %s | %.2f | %s | %.2f |\n", name, m, all, m / best }'
done
