#!/usr/bin/env bash
# The RISC-V demo: `khost tune` builds 8 configurations of the RVV matmul (kernels/matmul_vec:
# tiles, unrolling and LMUL for 256-bit vectors) with clang-19 for rv64gcv, checks each one's
# output under qemu-user, boots the virtual board (scripts/vboard.sh: Linux 6.12 with the SBI PMU
# under qemu-system-riscv64, the static riscv64 agentd as its init's service) and measures them
# there as on a K1 over the network, pinned to its CPU, in interleaved rounds: cycles and
# instructions of the board's PMU (exact under qemu's -icount, which also makes them equal: one
# instruction a cycle); then `khost analyze` ranks them and says why the winner wins. The board
# is powered off at the end.
#
#   scripts/demo_board.sh [BUILD_DIR]   (default: build; the demo goes to <repo>/demo-board)
#
# Needs what `scripts/setup.sh demo-board` installs and builds (the riscv64 agentd, the board's
# kernel: scripts/vboard.sh build).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
root=${KTUNE_DEMO_DIR:-$repo/demo-board}
khost="$build/bin/khost"
board="$root/board"

[ -x "$khost" ] || { echo "demo-board: $khost is missing; run scripts/setup.sh first" >&2; exit 1; }
mkdir -p "$root"
"$khost" tune matmul_vec --root "$root" --toolchain rvv-clang19 --sample 8 --seed 1 --check \
  --shape M=128 --shape N=128 --shape K=128
started=$("$repo/scripts/vboard.sh" start "$board")
echo "$started"
trap '"$repo/scripts/vboard.sh" stop "$board" >/dev/null 2>&1 || true' EXIT
address=${started#*agentd at }
address=${address%% *}
export KTUNE_TOKEN_FILE="$board/token"
"$khost" agent status --agent "$address"
"$khost" run matmul_vec --root "$root" --agent "$address" --cpu 0 --reps 6 --warmup 1 \
  --events cycles:u,instructions:u
"$khost" analyze matmul_vec --root "$root"
cat <<EOF2

demo-board: done; the sweep and its analysis are in $root/matmul_vec/run. On a real board:
  khost agent add k1 --ssh me@k1 && khost agent deploy k1, then
  khost tune matmul_vec --root DIR && khost run matmul_vec --root DIR --agent k1
EOF2
