#!/usr/bin/env bash
# khost tune through a compile farm: variants built per minute locally (one compile per core,
# the anchor) and through distcc (khost tune --launcher distcc) to two distccd on loopback ports
# of this machine, each taking as many jobs as it has cores. On one machine the farm has no
# more cores than the anchor, so this measures what distribution costs (preprocessing here, the
# round trip, distccd's work), not what it gains; see docs/BENCHMARKS.md for the figure on N
# hosts.
#
#   bench/compile_farm.sh [BUILD_DIR]     (TOOLCHAIN=native, VARIANTS=32, TRIALS=3)
#
# Each trial builds into fresh roots, local and distcc taking turns; medians over trials. Prints
# a Markdown table.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
TOOLCHAIN=${TOOLCHAIN:-native}
VARIANTS=${VARIANTS:-32}
TRIALS=${TRIALS:-3}
cores=$(nproc)
case $TOOLCHAIN in  # binutils' objcopy of the target, to compare the variants' code
  rvv-* | riscv64-*) objcopy=riscv64-linux-gnu-objcopy ;;
  aarch64-*) objcopy=aarch64-linux-gnu-objcopy ;;
  *) objcopy=objcopy ;;
esac
command -v distccd >/dev/null || { echo "compile_farm: no distccd (Debian package distcc)" >&2; exit 1; }
tmp=$(mktemp -d)
chmod 755 "$tmp"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

hosts=""
for i in 1 2; do
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  user=()
  [ "$(id -u)" = 0 ] && user=(--user nobody)
  distccd --daemon --no-detach --listen 127.0.0.1 --port "$port" --allow 127.0.0.1 \
    --jobs "$cores" --log-stderr --log-level warning "${user[@]}" 2>"$tmp/distccd$i.log" &
  pids+=($!)
  hosts="$hosts 127.0.0.1:$port/$cores"
done
export DISTCC_HOSTS="${hosts# }" DISTCC_FALLBACK=0 DISTCC_BACKOFF_PERIOD=0 DISTCC_DIR="$tmp/distcc"
mkdir -p "$DISTCC_DIR"
sleep 1

now() { date +%s.%N; }
tune() {  # root extra-args...
  local root=$1
  shift
  "$build/bin/khost" tune matmul --root "$root" --toolchain "$TOOLCHAIN" --sample "$VARIANTS" \
    --seed 1 "$@" > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
  grep -q "built $VARIANTS, up to date 0, failed 0" "$tmp/out" || { cat "$tmp/out" >&2; exit 1; }
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for t in $(seq "$TRIALS"); do
  start=$(now); tune "$tmp/local-$t"; end=$(now)
  awk -v a="$start" -v b="$end" 'BEGIN { print b - a }' >> "$tmp/local"
  start=$(now); tune "$tmp/farm-$t" --launcher distcc; end=$(now)
  awk -v a="$start" -v b="$end" 'BEGIN { print b - a }' >> "$tmp/farm"
  parallel=$(sed -n 's/.*), \([0-9]*\) parallel builds.*/\1/p' "$tmp/out")
  # The same code and data (debug information aside: docs/KSPEC.md, "A compile farm"); the
  # trees differ in their paths, so only the symbols' code is compared, by size and bytes.
  for f in "$tmp/local-$t"/matmul/run/bin/*.elf; do
    g="$tmp/farm-$t/matmul/run/bin/$(basename "$f")"
    "$objcopy" -O binary --only-section=.text "$f" "$tmp/a.text"
    "$objcopy" -O binary --only-section=.text "$g" "$tmp/b.text"
    cmp -s "$tmp/a.text" "$tmp/b.text" || { echo "compile_farm: $(basename "$f")'s code differs" >&2; exit 1; }
  done
  rm -rf "$tmp/local-$t" "$tmp/farm-$t"
done

local_s=$(median < "$tmp/local")
farm_s=$(median < "$tmp/farm")
echo "| build ($VARIANTS variants of matmul, $TOOLCHAIN, $TRIALS trials) | parallel builds | seconds (median) | variants/minute | ÷ local |"
echo "|---|---|---|---|---|"
awk -v s="$local_s" -v n="$VARIANTS" -v j="$cores" 'BEGIN { printf "| local (the anchor) | %d | %.2f | %.1f | 1.00 |\n", j, s, n * 60 / s }'
awk -v s="$farm_s" -v l="$local_s" -v n="$VARIANTS" -v j="$parallel" 'BEGIN { printf "| distcc, 2 distccd on this machine | %d | %.2f | %.1f | %.2f |\n", j, s, n * 60 / s, l / s }'
echo
echo "The variants' code (.text) byte-identical between the two builds in every trial."
