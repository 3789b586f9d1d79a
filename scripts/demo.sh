#!/usr/bin/env bash
# The demo sweep: `khost tune` builds 16 configurations of the example matmul kernel
# (kernels/matmul) for this machine in the seed's layout (<demo>/matmul/run/{bin,test_data,
# configs.json}) and checks each one's output, then `khost run` measures them on a local agentd
# it starts on loopback and prints the report, and `khost analyze` says which one wins, whether
# the win is real, and writes plots and an HTML report; the last lines say what to try next.
#
#   scripts/demo.sh [BUILD_DIR]        (default: build; the demo goes to <repo>/demo)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
root=${KTUNE_DEMO_DIR:-$repo/demo}
khost="$build/bin/khost"

[ -x "$khost" ] || { echo "demo: $khost is missing; run scripts/setup.sh first" >&2; exit 1; }
# Pinned to the last CPU where there are two or more (CPU 0 takes more of the machine's
# interrupts), as a user tuning for real would; rounds until each variant's median is settled
# or it is clearly slower than the best (--reps auto: 4 to 30 rounds), which gives every
# variant a confidence interval.
pin=()
cpus=$(nproc)
[ "$cpus" -ge 2 ] && pin=(--cpu $((cpus - 1)))
"$khost" tune matmul --root "$root" --toolchain native --sample 16 --seed 1 --check
"$khost" run matmul --root "$root" --reps auto --warmup 1 "${pin[@]}"
"$khost" analyze matmul --root "$root"
cat <<EOF

demo: done; the sweep and its analysis are in $root/matmul/run (khost is $khost). Next:
  your own kernel:  a spec in kernels/NAME/NAME.kspec (docs/KSPEC.md), then
                    khost tune NAME --root DIR --toolchain native && khost run NAME --root DIR
  a board over ssh: khost agent add k1 --ssh me@k1 && khost agent deploy k1, then
                    khost tune matmul --root DIR && khost run matmul --root DIR --agent k1
  the report:       report.html in the folder khost analyze wrote above (open it in a browser);
                    khost report matmul --root $root prints the table again
EOF
