#!/usr/bin/env bash
# Adaptive repetitions (issue 21): what `khost run --reps auto` spends against the fixed --reps
# that reaches the same decision. A 16-variant sweep of bench/fixed_work.c shaped like a tuning
# landscape: the best variant (WORK thousand iterations), a runner-up GAP% slower, and 14 more
# 10% to 150% slower. Each trial measures the sweep (--cpu CPU, --warmup 1) and asks `khost
# analyze` for its verdict: the true winner named (decided), the wrong one named, or no winner
# (not distinguishable, unstable). TRIALS trials of --reps auto (its defaults: --min-reps 4,
# --max-reps 30, --target-ci 2); then fixed --reps R up the ladder REPS_LADDER, TRIALS trials
# each, until one names the true winner in every trial. Repetitions counted are the measured
# rows (warm-ups, one per variant either way, are not). AUTO_ALSO (e.g. "--min-reps 6", the rule
# before d20251b): a second --reps auto with these options, its trials alternating with the
# first's, in a row of its own. Prints Markdown tables.
#
#   bench/adaptive.sh [BUILD_DIR]   (TRIALS=20, WORK=3000, GAP=2, CPU=1,
#                                    REPS_LADDER="6 8 10 12 15 20 25 30 40", AUTO_ALSO unset)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
TRIALS=${TRIALS:-20}
WORK=${WORK:-3000}
GAP=${GAP:-2}
CPU=${CPU:-1}
REPS_LADDER=${REPS_LADDER:-"6 8 10 12 15 20 25 30 40"}
tmp=$(mktemp -d)
chmod o+x "$tmp"  # agentd as root runs kernels as nobody
trap 'kill $agent_pid 2>/dev/null || true; rm -rf "$tmp"' EXIT

cc -O2 -o "$tmp/fixed_work" "$repo/bench/fixed_work.c"
mkdir -p "$tmp/root/sweep/run/bin"
# Slowdowns in percent over the best, listed in a shuffled order so that the best is not first.
slowdowns=(40 10 "$GAP" 150 25 60 15 0 80 30 100 20 50 120 35 70)
variants=""
for i in "${!slowdowns[@]}"; do
  s=${slowdowns[$i]}
  cp "$tmp/fixed_work" "$tmp/root/sweep/run/bin/v$i.elf"
  [ "$s" = 0 ] && best="v$i.elf"
  variants+="${variants:+,}{\"elf_path\": \"sweep/run/bin/v$i.elf\", \"args\": [\"$((WORK * (100 + s) / 100))\"]}"
done
echo "{\"variants\": [$variants]}" > "$tmp/root/sweep/run/configs.json"

"$build/bin/agentd" --listen 127.0.0.1:0 --store "$tmp/store" --log-level error > "$tmp/agent.out" &
agent_pid=$!
for _ in $(seq 50); do grep -q listening "$tmp/agent.out" 2>/dev/null && break; sleep 0.1; done
addr=$(sed -n 's/.* listening on \([^ ]*\) .*/\1/p' "$tmp/agent.out")

trial() {  # reps option... -> "decision repetitions"
  rm -rf "$tmp/root/sweep/run/results" "$tmp/root/sweep/run/analysis"
  "$build/bin/khost" run sweep --root "$tmp/root" --agent "$addr" --warmup 1 --cpu "$CPU" \
    --events task-clock "$@" > /dev/null 2>&1
  local reps verdict decision
  reps=$(cat "$tmp/root/sweep/run/results/"*.csv | grep -c ',wall-time,')
  verdict=$("$build/bin/khost" analyze sweep --root "$tmp/root" 2>/dev/null | grep 'verdict:' || true)
  case "$verdict" in
    *"unstable:"* | *"not distinguishable"*) decision=none ;;
    *"$best is faster"*) decision=true ;;
    *" is faster"*) decision=wrong ;;
    *) decision=none ;;
  esac
  echo "$decision $reps"
  echo "$* | $verdict" >> "$tmp/verdicts"
}

summary() {  # label file -> a table row
  local lo hi
  lo=$(awk '{print $2}' "$2" | sort -n | head -1)
  hi=$(awk '{print $2}' "$2" | sort -n | tail -1)
  awk -v label="$1" -v trials="$TRIALS" -v lo="$lo" -v hi="$hi" '
    {n[$1]++; total += $2}
    END {
      printf "| %s | %d | %d | %d | %d | %.1f | %d | %d |\n", label, trials, n["true"], n["wrong"],
             n["none"], total / NR, lo, hi
    }' "$2"
}

for _ in $(seq "$TRIALS"); do
  trial --reps auto >> "$tmp/auto"
  # shellcheck disable=SC2086  # AUTO_ALSO is options, split on purpose
  if [ -n "${AUTO_ALSO:-}" ]; then trial --reps auto $AUTO_ALSO >> "$tmp/auto_also"; fi
done
echo "| --reps | trials | true winner named | wrong winner named | no winner | repetitions (mean) | min | max |"
echo "|---|---|---|---|---|---|---|---|"
summary auto "$tmp/auto"
if [ -n "${AUTO_ALSO:-}" ]; then summary "auto $AUTO_ALSO" "$tmp/auto_also"; fi
auto_mean=$(awk '{t += $2} END {print t / NR}' "$tmp/auto")
fixed=
for r in $REPS_LADDER; do
  for _ in $(seq "$TRIALS"); do trial --reps "$r" >> "$tmp/fixed$r"; done
  summary "$r" "$tmp/fixed$r"
  if [ "$(grep -c '^true ' "$tmp/fixed$r")" = "$TRIALS" ]; then fixed=$r; break; fi
done
echo
if [ -n "$fixed" ]; then
  awk -v a="$auto_mean" -v f="$fixed" 'BEGIN {
    printf "--reps auto spent %.1f repetitions on average; --reps %d, the fewest of the ladder to name the true winner in every trial, spends %d: %.0f%%.\n", a, f, 16 * f, 100 * a / (16 * f) }'
else
  echo "No --reps of the ladder named the true winner in every trial."
fi
if [ -n "${VERDICTS:-}" ]; then cat "$tmp/verdicts"; fi
