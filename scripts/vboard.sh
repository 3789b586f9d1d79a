#!/usr/bin/env bash
# The virtual board: a RISC-V target with a real kernel PMU on this machine. qemu-system-riscv64's
# virt machine (RVV with VLEN 256, sscofpmf for sampling and mode filtering, -icount shift=0 so
# cycles and instructions are exact) boots a Linux built from Debian's linux-source-6.12
# (scripts/vboard/build_kernel.sh) and an initramfs whose init (scripts/vboard/init.c) starts the
# static riscv64 agentd (scripts/build_agent.sh). qemu's user network forwards a loopback port
# here to the agent. See docs/TARGET.md.
#
#   scripts/vboard.sh build         the riscv64 agentd (scripts/build_agent.sh), then kernel and
#                                   initramfs, each rebuilt only when its inputs change (cached
#                                   in ~/.cache/ktune/vboard, KTUNE_VBOARD_CACHE)
#   scripts/vboard.sh start DIR [--pmu-num N] [--smp N] [--memory MB] [--timeout S] [--port P]
#                     [-- AGENTD-ARGS...]
#       builds what is missing (an agentd already built is used as it is), writes a fresh token
#       to DIR/token, boots in the background (console in DIR/console.log, qemu's pid in
#       DIR/qemu.pid) and returns once agentd listens, printing "vboard: agentd at
#       127.0.0.1:PORT token DIR/token" (khost ... --agent 127.0.0.1:PORT --token-file DIR/token).
#       --pmu-num: programmable counters (qemu's default 16); --timeout: how long the board may
#       take to come up (default 120 s), after which it is stopped and the end of its console
#       shown.
#   scripts/vboard.sh stop DIR      powers the board off
set -euo pipefail
shopt -s inherit_errexit  # a failure inside $(...) stops the script too
repo=$(cd "$(dirname "$0")/.." && pwd)
here="$repo/scripts/vboard"
cache=${KTUNE_VBOARD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ktune/vboard}
agentd=${KTUNE_RISCV64_AGENTD:-$repo/build-agent-riscv64/bin/agentd}
cross=riscv64-linux-gnu-

say() { echo "vboard: $*" >&2; }
die() { say "$*"; exit 1; }
need() {  # tool package
  command -v "$1" >/dev/null || die "$1 is missing: install the Debian package $2"
}
hash_of() { cat "$@" | sha256sum | cut -c1-16; }

# The kernel, keyed by its recipe, config, source version and compiler.
kernel_dir() {
  need "${cross}gcc" gcc-riscv64-linux-gnu
  local version
  version=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
    die "the kernel source is missing: install the Debian package linux-source-6.12"
  echo "$cache/kernel-$( (cat "$here/build_kernel.sh" "$here/kernel.config"
    echo "$version"; "${cross}gcc" --version | head -1) | sha256sum | cut -c1-16)"
}

build_kernel() {
  local dir
  dir=$(kernel_dir)
  if [ ! -f "$dir/Image" ]; then
    rm -rf "$cache"/kernel-*  # older kernels: their inputs changed
    mkdir -p "$cache"
    "$here/build_kernel.sh" "$dir"
  fi
  echo "$dir"
}

# The initramfs: init, agentd, and the directories init mounts on; keyed by its contents.
build_initramfs() {
  local kernel=$1
  [ -x "$agentd" ] || "$repo/scripts/build_agent.sh" riscv64 >&2
  [ -x "$agentd" ] || die "no riscv64 agentd at $agentd"
  local key out
  key=$(hash_of "$here/init.c" "$agentd" "$0")
  out="$cache/initramfs-$key.cpio"
  if [ ! -f "$out" ]; then
    rm -f "$cache"/initramfs-*.cpio
    local tmp
    tmp=$(mktemp -d "$cache/initramfs.XXXXXX")
    "${cross}gcc" -static -Os -s -Wall -Wextra -Werror -o "$tmp/init" "$here/init.c" ||
      die "building scripts/vboard/init.c failed"
    cat > "$tmp/list" <<EOF
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0755 0 0
dir /sys 0755 0 0
dir /tmp 01777 0 0
file /init $tmp/init 0755 0 0
file /agentd $agentd 0755 0 0
EOF
    "$kernel/gen_init_cpio" "$tmp/list" > "$tmp/initramfs.cpio" || die "gen_init_cpio failed"
    mv "$tmp/initramfs.cpio" "$out"
    rm -rf "$tmp"
  fi
  echo "$out"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  local dir=${1:-}
  [ -n "$dir" ] || die "usage: scripts/vboard.sh start DIR [options] [-- AGENTD-ARGS...]"
  shift
  local pmu_num="" smp=1 memory=512 timeout=120 port=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --pmu-num) pmu_num=$2; shift 2 ;;
      --smp) smp=$2; shift 2 ;;
      --memory) memory=$2; shift 2 ;;
      --timeout) timeout=$2; shift 2 ;;
      --port) port=$2; shift 2 ;;
      --) shift; break ;;
      *) die "unknown option $1" ;;
    esac
  done
  for n in "$smp" "$memory" "$timeout" ${pmu_num:+"$pmu_num"} ${port:+"$port"}; do
    [[ "$n" =~ ^[0-9]+$ ]] || die "not a number: $n"
  done
  need qemu-system-riscv64 "qemu-system-riscv (from bookworm-backports)"
  local kernel initramfs
  kernel=$(build_kernel)
  initramfs=$(build_initramfs "$kernel")
  mkdir -p "$dir"
  if [ -f "$dir/qemu.pid" ] && kill -0 "$(cat "$dir/qemu.pid")" 2>/dev/null; then
    die "a board already runs from $dir (pid $(cat "$dir/qemu.pid")): scripts/vboard.sh stop $dir"
  fi
  [ -n "$port" ] || port=$(free_port)
  # A fresh token per boot: the agent serves qemu's network, so hosts must authenticate (and the
  # session is sealed). khost reads it with --token-file DIR/token.
  (umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$dir/token" && echo >> "$dir/token")
  local token
  token=$(tr -d '\n' < "$dir/token")
  local cpu="rv64,v=true,vlen=256,sscofpmf=true${pmu_num:+,pmu-num=$pmu_num}"
  local console="$dir/console.log"
  rm -f "$console" "$dir/qemu.pid"
  # The agent's arguments travel on the kernel command line, after "--", to init. qemu reports
  # a bad option or a missing firmware before it detaches.
  qemu-system-riscv64 -M virt -cpu "$cpu" -icount shift=0 -smp "$smp" -m "${memory}M" \
    -display none -monitor none -serial "file:$console" -daemonize -pidfile "$dir/qemu.pid" \
    -bios default -kernel "$kernel/Image" -initrd "$initramfs" \
    -append "console=ttyS0 ktune_token=$token -- $*" -no-reboot \
    -netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$port-10.0.2.15:7178" \
    -device virtio-net-device,netdev=n0 -device virtio-rng-device ||
    die "qemu-system-riscv64 did not start (above: why)"
  local pid
  pid=$(cat "$dir/qemu.pid")
  local waited=0
  while ! grep -q "^agentd .* listening on" "$console" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$dir/qemu.pid"
      say "the board stopped while booting; the end of $console:"
      tail -n 15 "$console" >&2
      exit 1
    fi
    if [ $waited -ge $((timeout * 10)) ]; then
      end_qemu "$pid" 0
      rm -f "$dir/qemu.pid"
      say "the board did not come up within $timeout s (stopped); the end of $console:"
      tail -n 15 "$console" >&2
      exit 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  echo "vboard: agentd at 127.0.0.1:$port token $dir/token (qemu pid $pid, $((waited / 10)) s to boot)"
}

# Whether process $1 has ended (gone, or a zombie its reaper has not collected yet).
ended() {
  ! kill -0 "$1" 2>/dev/null || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# Ends qemu $1: SIGTERM and up to $2 tenths of a second for it to go, then SIGKILL; returns once it
# has ended (a signal is delivered asynchronously, and a loaded machine takes a while to tear down).
end_qemu() {
  local pid=$1 grace=$2
  if [ "$grace" -gt 0 ]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq "$grace"); do ended "$pid" && return 0; sleep 0.1; done
  fi
  kill -9 "$pid" 2>/dev/null || true
  for _ in $(seq 100); do ended "$pid" && return 0; sleep 0.1; done
  say "qemu (pid $pid) still runs 10 s after SIGKILL"
}

stop() {
  local dir=${1:-}
  [ -n "$dir" ] || die "usage: scripts/vboard.sh stop DIR"
  [ -f "$dir/qemu.pid" ] || die "no board runs from $dir"
  local pid
  pid=$(cat "$dir/qemu.pid")
  end_qemu "$pid" 50
  rm -f "$dir/qemu.pid"
}

action=${1:-}
shift || true
case "$action" in
  build)
    [ -n "${KTUNE_RISCV64_AGENTD:-}" ] || "$repo/scripts/build_agent.sh" riscv64 >&2
    kernel=$(build_kernel)
    echo "kernel:    $kernel/Image"
    echo "initramfs: $(build_initramfs "$kernel")"
    ;;
  start) start "$@" ;;
  stop) stop "$@" ;;
  *) echo "usage: scripts/vboard.sh build | start DIR [options] [-- AGENTD-ARGS...] | stop DIR" >&2
     exit 2 ;;
esac
