#!/usr/bin/env bash
# khost roofline's ceilings against likwid-bench's (docs/BENCHMARKS.md "Roofline", issue 37), side
# by side in one run on one core of this machine (x86-64 with AVX2 and FMA):
#
#   compute   fp32 and fp64 in 32-byte vectors: roofline_flops against peakflops_sp_avx_fma and
#             peakflops_avx_fma (GFLOP/s)
#   memory    each stream's ceiling at each level khost roofline finds on its curve (L1, L2, ...,
#             DRAM) against likwid-bench's at the same working sets: a level's ceiling is the
#             highest bandwidth over its working sets (host/report/roofline.h LevelsFromCurve:
#             from its from_bytes to its capacity, DRAM's from 4x the last cache's to the
#             sweep's end), and likwid-bench's is taken alike, the highest of its runs at each of
#             those working sets. In GB/s: read against sum_avx (ktune's read adds what it
#             loads, as sum_avx does; load_avx, which discards what it loads, is printed beside
#             it), write against store_avx, copy against copy_avx and triad against stream_avx;
#             copy and triad also against likwid-bench running ktune's loop, its stores each
#             moved up to its load (below). The side tests run at the working set where the
#             anchor did best. Both tools count every array the stream touches, and the bytes
#             the program moves, without write-allocate traffic.
#
# The levels are the ones the curve shows, not the cache sizes the machine lists: on a VM whose
# last cache is shared with other machines (an Intel host listing 480 MiB of L3), the level ends
# where the curve falls, 64 MiB there, and a working set at half the listed size sits on the
# fall, where both tools' figures moved by 30% from one run to the next.
#
# ROUNDS rounds, each a whole `khost roofline` and then every likwid-bench run, so that a machine
# whose speed drifts (a VM beside others) moves both alike. Each figure is the best of the rounds
# (a ceiling is what the machine can reach; the Empirical Roofline Toolkit also takes the best),
# printed with its ratio to likwid-bench's anchor test (goal: within 10%) and the median of the
# rounds' ratios, then a count of the ceilings within 10%.
#
# Within a round, each tool has REPS tries at a working set and its figure is the best of them
# (the best rate, as khost roofline reports its ceilings): khost roofline's fastest of REPS
# repetitions, likwid-bench's highest of REPS runs, the first of a second or more as likwid-bench
# sizes it (-s 1), each other one as many iterations as that first one ran (-i). So both tools'
# ceilings are the best of ROUNDS x REPS tries. Up to b272bee, likwid-bench had one run a
# round: its best of ROUNDS against ktune's of ROUNDS x REPS (docs/BENCHMARKS.md "Roofline").
#
#   bench/roofline.sh [BUILD_DIR]     (REPS=5, ROUNDS=3; ROWS=FILE keeps every round's figures,
#                                      a line each: round, ceiling, working sets, ktune, anchor
#                                      test, its figure, other test or -, its figure)
#
# Both on CPU 0: likwid-bench's workgroup S0:<size>:1 runs on the first CPU of socket 0, and
# khost roofline is pinned there with --cpu 0. Needs likwid (scripts/setup.sh installs it) and a
# native build of khost and agentd.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
REPS=${REPS:-5}
ROUNDS=${ROUNDS:-3}
khost=$build/bin/khost
command -v likwid-bench >/dev/null ||
  { echo "bench/roofline.sh: no likwid-bench (apt install likwid)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ktune-bench-roofline.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/home XDG_DATA_HOME=$tmp/home/data XDG_CACHE_HOME=$tmp/home/cache

# likwid-bench's copy_avx and stream_avx load four vectors, then store the four; the loops gcc
# makes of ktune's copy and triad store each vector right after its load. On the Zen core this
# was measured on, that order alone moves an L1 copy 20-30% faster (docs/BENCHMARKS.md
# "Roofline"). So copy and triad are also measured by likwid-bench in ktune's order: the same
# instructions, each store moved up to its load, as benchmarks of likwid-bench's own format that
# it builds and runs from $HOME/.likwid/bench/x86-64/ (likwid-bench(1)); its harness, timing and
# counting unchanged.
#
# Read's anchor is sum_avx, not load_avx: on the Intel core of docs/BENCHMARKS.md "Roofline", any
# loop that puts each 32-byte vector it loads through one vector instruction (vaddpd, vpaddq or
# vpxor, from memory or from a register) read L1 at 229-235 GB/s, as sum_avx does, while loads
# alone ran at 290-311; a kernel uses what it reads, so that is the ceiling a roofline places it
# under.
likwid_home=$tmp/likwid-home
mkdir -p "$likwid_home/.likwid/bench/x86-64"
{
  printf 'STREAMS 2\nTYPE DOUBLE\nFLOPS 0\nBYTES 16\nLOOP 16\n'
  for i in 0 1 2 3; do
    printf 'vmovaps ymm%d, [STR0 + GPR1 * 8 + %d]\n' $((i + 1)) $((i * 32))
    printf 'vmovaps [STR1 + GPR1 * 8 + %d], ymm%d\n' $((i * 32)) $((i + 1))
  done
} >"$likwid_home/.likwid/bench/x86-64/copy_avx_interleaved.ptt"
{
  printf 'STREAMS 3\nTYPE DOUBLE\nFLOPS 2\nBYTES 24\nvmovaps ymm1, [rip+SCALAR]\nLOOP 16\n'
  for i in 0 1 2 3; do
    printf 'vmovaps ymm%d, [STR1 + GPR1 * 8 + %d]\n' $((i + 2)) $((i * 32))
    printf 'vmulpd ymm%d, ymm%d, ymm1\n' $((i + 2)) $((i + 2))
    printf 'vaddpd ymm%d, ymm%d, [STR2 + GPR1 * 8 + %d]\n' $((i + 2)) $((i + 2)) $((i * 32))
    printf 'vmovaps [STR0 + GPR1 * 8 + %d], ymm%d\n' $((i * 32)) $((i + 2))
  done
} >"$likwid_home/.likwid/bench/x86-64/stream_avx_interleaved.ptt"

# The last cache's size in bytes, from likwid-topology ("Size: 32 kB" per level, kB = 1024
# there): the sweep goes to 4x it.
mapfile -t caches < <(likwid-topology 2>/dev/null | awk '
  /^Size:/ { n = $2; u = $3; f = (u == "kB") ? 1024 : (u == "MB") ? 1048576 : 1; print n * f }')
[ "${#caches[@]}" -ge 2 ] ||
  { echo "bench/roofline.sh: likwid-topology shows no caches" >&2; exit 2; }
last=${caches[${#caches[@]}-1]}

# likwid-bench's figure for TEST at SIZE bytes, the highest of REPS runs: MFlops/s or MByte/s,
# in G; empty when no run printed one. Its sizes are 32-bit byte counts; beyond 2 GiB the size
# goes in its kB (1000 bytes), rounded down.
likwid() {  # test size_bytes field
  local size=${2}B out iterations try
  [ "$2" -lt 2147483648 ] || size=$(($2 / 1000))kB
  out=$(HOME=$likwid_home likwid-bench -t "$1" -w "S0:$size:1" -s 1 </dev/null 2>/dev/null) || true
  iterations=$(awk '/^Iterations:/ { print $2; exit }' <<<"$out")
  {
    echo "$out"
    for ((try = 2; try <= REPS; ++try)); do
      [ -n "$iterations" ] || break
      HOME=$likwid_home likwid-bench -t "$1" -w "S0:$size:1" -i "$iterations" </dev/null \
        2>/dev/null || true
    done
  } | awk -v f="$3" '$0 ~ f":" { g = $NF / 1000; if (!n++ || g > best) best = g }
                     END { if (n) print best }'
}
# From khost roofline's JSON: a line per stream and level, "stream level gbytes_per_s bytes...",
# the working sets of the stream's curve that the level's ceiling was taken over.
ktune_levels() {  # json
  python3 -c "
import json, sys
for s in json.load(open(sys.argv[1]))['streams']:
    for l in s['levels']:
        top = l['size_bytes'] or float('inf')
        sets = [int(p['bytes']) for p in s['points'] if l['from_bytes'] <= p['bytes'] <= top]
        print(s['stream'], l['level'], l['gbytes_per_s'], *sets)" "$@"
}
ktune_compute() {  # json name
  python3 -c "
import json, sys
print([c['gflops'] for c in json.load(open(sys.argv[1]))['compute'] if c['name'] == sys.argv[2]][0])
" "$@"
}
anchor_of() { case $1 in read) echo sum_avx:load_avx ;; write) echo store_avx: ;;
  copy) echo copy_avx:copy_avx_interleaved ;; triad) echo stream_avx:stream_avx_interleaved ;; esac; }

rows=${ROWS:-$tmp/rows.tsv}
: >"$rows"
for ((round = 1; round <= ROUNDS; ++round)); do
  echo "bench/roofline.sh: round $round of $ROUNDS" >&2
  rm -rf "$tmp/work"
  "$khost" roofline --toolchain native --cpu 0 --reps "$REPS" --root "$tmp/work" \
    --max-size "$((last * 4))" --db "sqlite:$tmp/t.db" --format json >"$tmp/ktune.json" \
    2>"$tmp/ktune.err" || { cat "$tmp/ktune.err" >&2; exit 1; }
  for p in "fp32:peakflops_sp_avx_fma" "fp64:peakflops_avx_fma"; do
    printf '%s\t%s\t-\t%s\t%s\t%s\t-\t-\n' "$round" "${p%%:*} vector 32 B GFLOP/s" \
      "$(ktune_compute "$tmp/ktune.json" "${p%%:*} vector 32 B")" "${p#*:}" \
      "$(likwid "${p#*:}" 16384 MFlops/s)" >>"$rows"
  done
  while read -r stream level gbs sets; do
    IFS=: read -r anchor other <<<"$(anchor_of "$stream")"
    # The anchor's best over the level's working sets, and where (the first of equals); a run
    # that printed no figure counts as 0.
    read -r best at < <(for bytes in $sets; do
      got=$(likwid "$anchor" "$bytes" MByte/s)
      echo "${got:-0} $bytes"
    done | sort -s -k1,1gr | head -1)
    sets=${sets// /,}
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$stream $level GB/s" "$sets" "$gbs" \
      "$anchor" "$best" "${other:--}" \
      "$([ -n "$other" ] && likwid "$other" "$at" MByte/s || echo -)" >>"$rows"
  done < <(ktune_levels "$tmp/ktune.json")
done

python3 - "$rows" <<'EOF'
import statistics, sys
def size(b):
    b = int(b)
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= f:
            return f"{b / f:g} {unit}"
    return f"{b} B"
rows = {}
for line in open(sys.argv[1]):
    _, name, sets, k, at, a, ot, o = line.rstrip("\n").split("\t")
    first, last = sets.split(",")[0], sets.split(",")[-1]
    span = "-" if sets == "-" else size(first) if first == last else f"{size(first)}-{size(last)}"
    rows.setdefault(name, []).append((float(k), at, float(a), ot, None if o == "-" else float(o),
                                      span))
print(f"{'ceiling':26} {'rounds':>6} {'working sets':>22} {'ktune':>9} {'anchor':>22} {'ratio':>7}"
      f" {'median ratio':>13} {'also':>32} {'ratio':>7}")
within = 0
for name, runs in rows.items():
    k = max(r[0] for r in runs)
    a = max(r[2] for r in runs)
    med = statistics.median(r[0] / r[2] for r in runs)
    within += abs(k / a - 1) <= 0.10
    spans = ", ".join(dict.fromkeys(r[5] for r in runs))
    line = (f"{name:26} {len(runs):6} {spans:>22} {k:9.2f} {runs[0][1]:>12} {a:9.2f} {k / a:7.3f}"
            f" {med:13.3f}")
    if runs[0][4] is not None:
        o = max(r[4] for r in runs)
        line += f" {runs[0][3]:>22} {o:9.2f} {k / o:7.3f}"
    print(line)
print(f"within 10% of the anchor: {within} of {len(rows)}")
EOF
