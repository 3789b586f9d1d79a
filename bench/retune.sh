#!/usr/bin/env bash
# The re-tune benchmark (docs/BENCHMARKS.md, issue 35): khost tune --strategy bayes --budget 60 of
# a copy of a kernel, then the same search again after one configuration's source changed (a
# global only that configuration's build has, appended to the kernel source: its ELF alone
# differs), then once more with nothing changed. Side by side with the second, the same search on
# a copy of the database as the first left it, with --warm-start 0: bayes's own path, each
# configuration it asks reused when it can be. Each search's wall time and how many variants it
# measured and reused from the tuning database (a new SQLite file here); the first search is the
# anchor.
#
#   bench/retune.sh [BUILD_DIR]     (KERNEL=matmul_vec, BUDGET=60, SEED=1)
#
# The agent is a local agentd pinned to CPU 1, the toolchain the native gcc, 3 repetitions.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
KERNEL=${KERNEL:-matmul_vec}
BUDGET=${BUDGET:-60}
SEED=${SEED:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/kernels"
cp -r "$repo/kernels/$KERNEL" "$repo/kernels/common" "$tmp/kernels/"
spec=$tmp/kernels/$KERNEL/$KERNEL.kspec

now() { date +%s.%N; }
search() {  # name database [khost tune options]
  local start end name=$1 db=$2
  shift 2
  start=$(now)
  "$build/bin/khost" tune "$spec" --root "$tmp/root" --db "$db" --strategy bayes \
    --budget "$BUDGET" --seed "$SEED" --toolchain native --reps 3 --cpu 1 "$@" \
    > "$tmp/$name.log" 2>&1 || { tail -20 "$tmp/$name.log" >&2; exit 1; }
  end=$(now)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f\n", b - a }' > "$tmp/$name.s"
}
# The "search done" line's counts: evaluations, variants measured, variants reused.
counts() {  # name
  sed -n 's/^search done: \([0-9]*\) evaluations (\([0-9]*\) evaluated now\(.*\)/\1 \2 \3/p' \
    "$tmp/$1.log" | awk '{
      measured = $2; reused = 0
      if (match($0, /variants [0-9]+ measured, [0-9]+ reused/)) {
        split(substr($0, RSTART, RLENGTH), w, " "); measured = w[2]; reused = w[4]
      }
      print $1, measured, reused }'
}

search first "$tmp/tuning.db"
for f in "$tmp"/tuning.db*; do cp "$f" "$tmp/cold.db${f#"$tmp"/tuning.db}"; done  # -wal too
# The kernel source's file, and the first configuration the first search measured.
source_file=$tmp/kernels/$KERNEL/$(sed -n 's/^kernel_source: *//p' "$spec")
journal=$(ls "$tmp/root/$KERNEL/run/searches/"*.csv | tail -1)
header=$(grep -v '^#' "$journal" | head -1)
values=$(grep -v '^#' "$journal" | sed -n 2p)
IFS=, read -r -a names <<< "$header"
IFS=, read -r -a config <<< "$values"
condition=
for i in "${!names[@]}"; do
  case "${names[$i]}" in time_ns|status|run) continue ;; esac
  condition+="${condition:+ && }${names[$i]} == ${config[$i]}"
done
printf '#if %s\nint ktune_retune_marker = 1;\n#endif\n' "$condition" >> "$source_file"
search changed "$tmp/tuning.db"
search changed-cold "$tmp/cold.db" --warm-start 0
search again "$tmp/tuning.db"

echo "$KERNEL, bayes, budget $BUDGET, seed $SEED; changed: $condition"
echo
echo "| search | evaluations | variants measured | reused | wall s | ratio |"
echo "|---|---|---|---|---|---|"
anchor=$(cat "$tmp/first.s")
for s in first changed changed-cold again; do
  read -r evaluations measured reused <<< "$(counts "$s")"
  wall=$(cat "$tmp/$s.s")
  ratio=$(awk -v a="$anchor" -v b="$wall" 'BEGIN { printf "%.2f", b / a }')
  echo "| $s | $evaluations | $measured | $reused | $wall | $ratio |"
done
