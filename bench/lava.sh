#!/usr/bin/env bash
# The LAVA benchmarks (docs/BENCHMARKS.md, issue 36), side by side in one run on a loopback LAVA
# lab (scripts/lava.sh up, two qemu devices) booting the virtual board:
#
#   first row   from `khost run` to the first measured row in the results file: through LAVA (one
#               board reserved: submit, schedule, boot, agentd) against the virtual board started
#               directly (scripts/vboard.sh start, then khost run at its address): the cost of the
#               lab's machinery. The anchor is the direct board.
#   sweep       a sweep of VARIANTS x REPS on two boards of the lab against one (boards reserved in
#               each): wall time, and one board's over two's (goal >= 1.6).
#
#   bench/lava.sh [BUILD_DIR]     (VARIANTS=8, REPS=60, ROUNDS=3)
#
# Needs root (scripts/lava.sh), lava-server (scripts/setup.sh), the riscv64 agentd and the
# virtual board's images (scripts/vboard.sh build).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
VARIANTS=${VARIANTS:-8}
REPS=${REPS:-60}
ROUNDS=${ROUNDS:-3}
khost=$build/bin/khost
tmp=$(mktemp -d /tmp/ktune-bench-lava.XXXXXX)
chmod 0711 "$tmp"  # LAVA's daemons (user lavaserver) write their logs under the lab's directory
cleanup() {
  "$repo/scripts/vboard.sh" stop "$tmp/board" >/dev/null 2>&1 || true
  "$repo/scripts/lava.sh" down "$tmp/lab" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
# khost's config and database in the run's directory; the board's images stay in the user's cache.
export XDG_CONFIG_HOME=$tmp/home XDG_DATA_HOME=$tmp/home/data

"$repo/scripts/lava.sh" up "$tmp/lab" --devices 2 >/dev/null
url=$(cat "$tmp/lab/url")
images=$("$repo/scripts/vboard.sh" build 2>&1)
kernel=$(sed -n 's/^kernel: *//p' <<<"$images")
initrd=$(sed -n 's/^initramfs: *//p' <<<"$images")
sed -e "s|@KERNEL_URL@|file://$kernel|g" -e "s|@INITRD_URL@|file://$initrd|g" \
  "$repo/scripts/lava/vboard-job.yaml" >"$tmp/job.yaml"
for n in 1 2; do
  "$khost" agent add "lab$n" --lava "$url" --device-type qemu --boards "$n" \
    --job-template "$tmp/job.yaml" --token-file "$tmp/lab/token" --job-minutes 20 2>/dev/null
done
root=$tmp/work
"$khost" tune matmul --root "$root" --sample "$VARIANTS" --shape M=48 --shape N=32 --shape K=16 \
  >/dev/null 2>&1

now() { date +%s.%N; }
rows() { cat "$root"/matmul/run/results/*.csv 2>/dev/null | grep -c '^[0-9]' || true; }
# Seconds from now until the results file has a row, while `khost run ARGS` runs to its end.
first_row() {
  rm -rf "$root/matmul/run/results"
  local start t="" pid
  start=$(now)
  "$khost" run matmul --root "$root" --reps 2 --warmup 0 "$@" >/dev/null 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if [ -z "$t" ] && [ "$(rows)" -gt 0 ]; then t=$(echo "$(now) - $start" | bc); fi
    sleep 0.1
  done
  wait "$pid"
  echo "$t"
}
direct_first_row() {
  local start t board
  start=$(now)
  board=$("$repo/scripts/vboard.sh" start "$tmp/board" 2>/dev/null | sed -n 's/.*agentd at \([^ ]*\).*/\1/p')
  local boot
  boot=$(echo "$(now) - $start" | bc)
  t=$(KTUNE_TOKEN_FILE=$tmp/board/token first_row --agent "$board")
  "$repo/scripts/vboard.sh" stop "$tmp/board" >/dev/null 2>&1
  echo "$boot + $t" | bc
}
sweep() {  # agent
  rm -rf "$root/matmul/run/results"
  local start
  start=$(now)
  "$khost" run matmul --root "$root" --agent "$1" --reps "$REPS" --warmup 0 >/dev/null 2>&1
  echo "$(now) - $start" | bc
}
# How many variants each board of the last sweep measured, "5/3": a board that came up later
# takes fewer, and the sweep ends with the other's last shard.
split() {
  /usr/bin/python3 - "$root"/matmul/run/results/*.json <<'PY'
import json, sys
n = {}
for s in json.load(open(sys.argv[1])).get("shards", []):
    if s["state"] in ("done", "merged"):
        n[s["agent"]] = n.get(s["agent"], 0) + len(s["variants"])
print("/".join(str(v) for v in sorted(n.values(), reverse=True)) or "-")
PY
}

echo "| round | direct: first row s | LAVA: first row s | ratio | sweep, 1 board s | 2 boards s | variants per board | speed-up |"
echo "|---|---|---|---|---|---|---|---|"
for r in $(seq "$ROUNDS"); do
  d=$(direct_first_row)
  l=$(first_row --agent lab1)
  s1=$(sweep lab1)
  s2=$(sweep lab2)
  printf '| %d | %.1f | %.1f | %.2f | %.1f | %.1f | %s | %.2f |\n' "$r" "$d" "$l" \
    "$(echo "$l / $d" | bc -l)" "$s1" "$s2" "$(split)" "$(echo "$s1 / $s2" | bc -l)"
done
