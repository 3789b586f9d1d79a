#!/usr/bin/env bash
# Records the landscapes the search benchmark replays (bench/search_replay.cc): a grid search
# (khost tune --strategy grid) of each kernel, every feasible configuration measured, its journal
# copied to test_data/landscapes/<kernel>-<where>.csv. The journal's comments say how it was
# measured (toolchain, shape, agent, CPU, repetitions, khost's command line).
#
#   bench/record_landscapes.sh local [KERNEL...]   native gcc, a local agentd, pinned to CPU 1
#   bench/record_landscapes.sh vboard [KERNEL...]  rvv-clang19 on the virtual board
#                                                   (scripts/vboard.sh; icount: exact, so one
#                                                   repetition)
#
# Default kernels: matmul softmax layernorm matmul_vec. SHAPE="M=128 N=128 K=128" overrides the
# specs' shapes (khost tune --shape) and names the file after it, <kernel>-<where>-M128-N128-K128
# .csv, so that one kernel's landscapes at several shapes sit side by side (the transfer
# benchmark, search_replay --warm). Every configuration is measured (--fresh: nothing reused from
# the tuning database). Nothing else may run meanwhile (the local times are wall-clock; the
# board's are instruction counts, which a busy host does not change).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
khost=${KHOST:-$repo/build/bin/khost}
where=${1:-}
shift || true
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(matmul softmax layernorm matmul_vec)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A copy, so that a rebuild meanwhile does not change the khost of a long recording.
cp "$khost" "$work/khost"
khost=$work/khost
case "$where" in
  local)
    args=(--toolchain native --reps 5 --cpu 1)
    ;;
  vboard)
    # The board keeps every pushed ELF in its RAM-backed store: 1,584 static variants need GBs.
    "$repo/scripts/vboard.sh" start "$work/board" --memory 6144 > "$work/board.log"
    trap '"$repo/scripts/vboard.sh" stop "$work/board" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
    addr=$(sed -n 's/.*agentd at \([^ ]*\) token.*/\1/p' "$work/board.log")
    args=(--toolchain rvv-clang19 --reps 1 --warmup 0 --agent "$addr"
          --token-file "$work/board/token" --timeout 600)
    ;;
  *) echo "usage: bench/record_landscapes.sh local|vboard [KERNEL...]" >&2; exit 2 ;;
esac
suffix=
for s in ${SHAPE:-}; do
  args+=(--shape "$s")
  suffix+="-${s/=/}"
done
mkdir -p "$repo/test_data/landscapes"
for k in "${kernels[@]}"; do
  start=$SECONDS
  "$khost" tune "$k" --root "$work/root" --strategy grid --batch 66 --seed 1 --fresh \
    "${args[@]}" \
    > "$work/$k.log" 2>&1 || { tail -20 "$work/$k.log" >&2; exit 1; }
  journal=$(ls "$work/root/$k/run/searches/"*.csv | tail -1)
  out=test_data/landscapes/$k-$where$suffix.csv
  cp "$journal" "$repo/$out"
  echo "$k on $where: $(($(wc -l < "$journal") - 7)) configurations in $((SECONDS - start)) s" \
       "-> $out"
done
