#!/usr/bin/env bash
# A static, stripped agentd for a target, against the libraries scripts/target_deps.sh builds
# from Debian source packages (cached):
#
#   scripts/build_agent.sh riscv64 [BUILD_DIR]   (default build-agent-riscv64; gcc-12 cross)
#   scripts/build_agent.sh x86_64 [BUILD_DIR]    (default build-agent-x86_64)
#
# Prints the binary's path and its stripped size. See docs/TARGET.md.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-}
case "$arch" in
  riscv64) toolchain=(-DCMAKE_TOOLCHAIN_FILE="$repo/toolchains/riscv64-gcc12.cmake") ;;
  x86_64) toolchain=() ;;
  *) echo "usage: scripts/build_agent.sh riscv64|x86_64 [BUILD_DIR]" >&2; exit 2 ;;
esac
dir=${2:-$repo/build-agent-$arch}
mkdir -p "$dir"
prefix=$("$repo/scripts/target_deps.sh" "$arch" | tail -1)
cmake -S "$repo" -B "$dir" -G Ninja "${toolchain[@]}" -DKTUNE_TARGET_DEPS="$prefix" \
  -DCMAKE_BUILD_TYPE=MinSizeRel -DKTUNE_WERROR=ON > "$dir/configure.log" 2>&1 ||
  { tail -20 "$dir/configure.log" >&2; exit 1; }
cmake --build "$dir" --target agentd
bin="$dir/bin/agentd"
echo "agentd for $arch: $bin, $(stat -c %s "$bin") bytes stripped ($(file -b "$bin" | cut -d, -f1,2))"
