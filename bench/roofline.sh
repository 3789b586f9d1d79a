#!/usr/bin/env bash
# khost roofline's ceilings against likwid-bench's (docs/BENCHMARKS.md "Roofline", issue 37), side
# by side in one run on one core of this machine (x86-64 with AVX2 and FMA):
#
#   compute   fp32 and fp64 in 32-byte vectors: roofline_flops against peakflops_sp_avx_fma and
#             peakflops_avx_fma (GFLOP/s)
#   memory    read, write, copy and triad at a working set in each level, from likwid-topology's
#             caches (half of L1, half of L2, half of the last cache, 4x the last cache):
#             roofline_bandwidth against load_avx, store_avx, copy_avx and stream_avx (GB/s; the
#             working set is every array the stream touches in both, and both count the bytes the
#             program moves, without write-allocate traffic). sum_avx (a sum, as ktune's read
#             does its loads) is printed beside load_avx.
#
# The anchor is likwid-bench; each ktune figure is printed as its ratio to it (goal: within 10%).
#
#   bench/roofline.sh [BUILD_DIR]     (REPS=5, ROUNDS=1)
#
# Both on CPU 0: likwid-bench's workgroup S0:<size>:1 runs on the first CPU of socket 0, and
# khost roofline is pinned there with --cpu 0.
#
# Needs likwid (scripts/setup.sh installs it) and a native build of khost and agentd.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
REPS=${REPS:-5}
ROUNDS=${ROUNDS:-1}
khost=$build/bin/khost
command -v likwid-bench >/dev/null || { echo "bench/roofline.sh: no likwid-bench (apt install likwid)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ktune-bench-roofline.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/home XDG_DATA_HOME=$tmp/home/data XDG_CACHE_HOME=$tmp/home/cache

# The caches' sizes in bytes, from likwid-topology ("Size: 32 kB" per level).
mapfile -t caches < <(likwid-topology 2>/dev/null | awk '
  /^Size:/ { n = $2; u = $3; f = (u == "kB") ? 1024 : (u == "MB") ? 1048576 : 1; print n * f }')
[ "${#caches[@]}" -ge 2 ] || { echo "bench/roofline.sh: likwid-topology shows no caches" >&2; exit 2; }
last=${caches[${#caches[@]}-1]}
sets=()
for c in "${caches[@]}"; do sets+=($((c / 2))); done
sets+=($((last * 4)))
names=()
for ((i = 0; i < ${#caches[@]}; ++i)); do names+=("L$((i + 1))"); done
names+=("DRAM")
max=$((last * 4))

# likwid-bench's figure for TEST at SIZE bytes on CPU: MFlops/s or MByte/s, in G.
likwid() {  # test size_bytes field
  likwid-bench -t "$1" -w "S0:${2}B:1" -s 1 2>/dev/null |
    awk -v f="$3" '$0 ~ f":" { print $NF / 1000; exit }'
}

for ((round = 1; round <= ROUNDS; ++round)); do
  echo "== round $round of $ROUNDS"
  rm -rf "$tmp/work"
  "$khost" roofline --toolchain native --cpu 0 --reps "$REPS" --root "$tmp/work" \
    --max-size "$max" --db "sqlite:$tmp/t.db" --format json >"$tmp/ktune.json" 2>"$tmp/ktune.err" ||
    { cat "$tmp/ktune.err" >&2; exit 1; }
  printf '%-22s %12s %12s %8s\n' "ceiling" "ktune" "likwid" "ratio"
  row() {  # name ktune likwid
    printf '%-22s %12.2f %12.2f %8.3f\n' "$1" "$2" "$3" "$(echo "$2 / $3" | bc -l)"
  }
  for p in "fp32 sp_" "fp64 "; do
    prec=${p%% *}
    sp=${p#* }
    k=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print([c['gflops'] for c in j['compute'] if c['name']==sys.argv[2]][0])" \
      "$tmp/ktune.json" "$prec vector 32 B")
    l=$(likwid "peakflops_${sp}avx_fma" 16384 MFlops/s)
    row "$prec vector 32 B GFLOP/s" "$k" "$l"
  done
  # ktune's GB/s at the working set nearest below SIZE of STREAM.
  ktune_at() {  # stream size
    python3 -c "
import json, sys
j = json.load(open(sys.argv[1])); size = float(sys.argv[3])
pts = [p for s in j['streams'] if s['stream'] == sys.argv[2] for p in s['points'] if p['bytes'] <= size]
print(max(pts, key=lambda p: p['bytes'])['gbytes_per_s'])" "$tmp/ktune.json" "$1" "$2"
  }
  for ((i = 0; i < ${#sets[@]}; ++i)); do
    size=${sets[$i]}
    for pair in read:load_avx write:store_avx copy:copy_avx triad:stream_avx; do
      stream=${pair%%:*}
      test=${pair#*:}
      row "$stream ${names[$i]} ($((size / 1024)) KiB) GB/s" "$(ktune_at "$stream" "$size")" \
        "$(likwid "$test" "$size" MByte/s)"
    done
    printf '%-22s %12s %12.2f\n' "  (sum_avx ${names[$i]})" "" "$(likwid sum_avx "$size" MByte/s)"
  done
done
