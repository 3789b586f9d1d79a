#!/usr/bin/env bash
# Winner accuracy under interference (issue 21): two variants of bench/fixed_work.c whose true
# speeds differ by a known 3% (the slower, with 3% more work, listed first), measured with
# `khost run --reps REPS --cpu 1`; when half of the run's rows are in, a CPU hog starts on CPU 1
# and runs to the run's end. TRIALS trials for each of --order sequential and interleaved (the
# orders take turns); each trial's `khost analyze` verdict counts as the true winner named, the
# wrong winner named, or flagged (unstable, or not distinguishable). Prints a Markdown table.
#
#   bench/interference.sh [BUILD_DIR]     (TRIALS=20, REPS=20, WORK=20000: thousand iterations)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
TRIALS=${TRIALS:-20}
REPS=${REPS:-20}
WORK=${WORK:-20000}
tmp=$(mktemp -d)
chmod o+x "$tmp"  # agentd as root runs kernels as nobody
hog=
trap 'kill $agent_pid $hog 2>/dev/null || true; rm -rf "$tmp"' EXIT

cc -O2 -o "$tmp/fixed_work" "$repo/bench/fixed_work.c"
mkdir -p "$tmp/root/pair/run/bin"
cp "$tmp/fixed_work" "$tmp/root/pair/run/bin/slow.elf"
cp "$tmp/fixed_work" "$tmp/root/pair/run/bin/fast.elf"
cat > "$tmp/root/pair/run/configs.json" <<JSON
{"variants": [
  {"elf_path": "pair/run/bin/slow.elf", "args": ["$((WORK * 103 / 100))"]},
  {"elf_path": "pair/run/bin/fast.elf", "args": ["$WORK"]}]}
JSON

"$build/bin/agentd" --listen 127.0.0.1:0 --store "$tmp/store" --log-level error > "$tmp/agent.out" &
agent_pid=$!
for _ in $(seq 50); do grep -q listening "$tmp/agent.out" 2>/dev/null && break; sleep 0.1; done
addr=$(sed -n 's/.* listening on \([^ ]*\) .*/\1/p' "$tmp/agent.out")

half=$REPS  # rows: 2 variants x REPS; half of them is REPS
rows() { cat "$tmp/root/pair/run/results/"*.csv 2>/dev/null | grep -c ',wall-time,' || true; }

trial() {  # order -> correct | wrong | flagged
  rm -rf "$tmp/root/pair/run/results" "$tmp/root/pair/run/analysis"
  "$build/bin/khost" run pair --root "$tmp/root" --agent "$addr" --reps "$REPS" --warmup 1 \
    --cpu 1 --events task-clock --order "$1" > /dev/null 2>&1 &
  local run=$!
  while kill -0 $run 2>/dev/null && [ "$(rows)" -lt "$half" ]; do sleep 0.01; done
  taskset -c 1 sh -c 'while :; do :; done' &
  hog=$!
  wait $run || true
  kill $hog 2>/dev/null || true
  wait $hog 2>/dev/null || true
  hog=
  local verdict
  verdict=$("$build/bin/khost" analyze pair --root "$tmp/root" 2>/dev/null | grep 'verdict:' || true)
  case "$verdict" in
    *"unstable:"* | *"not distinguishable"*) echo flagged ;;
    *"fast.elf is faster"*) echo correct ;;
    *"slow.elf is faster"*) echo wrong ;;
    *) echo "flagged" ;;
  esac
  echo "$1 $verdict" >> "$tmp/verdicts"
}

for _ in $(seq "$TRIALS"); do
  for order in sequential interleaved; do trial "$order" >> "$tmp/$order"; done
done

echo "| order | trials | true winner named | wrong winner named | flagged (unstable or cannot tell) |"
echo "|---|---|---|---|---|"
for order in sequential interleaved; do
  c=$(grep -c '^correct$' "$tmp/$order" || true)
  w=$(grep -c '^wrong$' "$tmp/$order" || true)
  f=$(grep -c '^flagged$' "$tmp/$order" || true)
  echo "| $order | $TRIALS | $c | $w | $f |"
done
if [ -n "${VERDICTS:-}" ]; then cat "$tmp/verdicts"; fi
