#!/usr/bin/env bash
# ktune's setup: installs the Debian 12 packages ktune needs (only those missing; nothing is
# downloaded from anywhere but the configured Debian mirrors), builds, and runs what was asked.
#
#   scripts/setup.sh demo              set up, build, run the demo sweep on a local agent
#   scripts/setup.sh demo-board        set up, build, run the RISC-V demo on the virtual board
#                                      (scripts/demo_board.sh)
#   scripts/setup.sh test [--sanitize] set up, build, run every test (ASan+UBSan build with
#                                      --sanitize, in build-asan/), the target tier against a
#                                      static riscv64 agentd (build-agent-riscv64/) under
#                                      qemu-user and on the virtual board (scripts/vboard.sh)
#   scripts/setup.sh build             set up and build only
#
# Run as root or as a user with sudo. Builds are warning-free: -Werror is on.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
action=${1:-build}
shift || true
sanitize=0
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=1 ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

# What the demo needs, and no more: the compiler, CMake and the libraries khost and agentd link
# (doctest too, a header, since build/ is configured with its tests), and gnuplot for analyze's
# plots. `setup.sh demo` installs only these and builds only khost and agentd.
demo_packages=(
  build-essential cmake ninja-build pkg-config git python3

  libboost-dev libboost-filesystem-dev
  protobuf-compiler libprotobuf-dev libzstd-dev libsodium-dev
  libcxxopts-dev nlohmann-json3-dev doctest-dev
  libeigen3-dev  # khost's Bayesian optimization (host/strategy/gaussian_process.h)
  # The tuning database (host/db/): SQLite on one machine, PostgreSQL for a team (libpq).
  libsqlite3-dev libpq-dev
  # LAVA labs' REST API (host/lava/): HTTP and HTTPS.
  libcurl4-openssl-dev
  gnuplot-nox  # khost analyze's plots
  # The native toolchain profile's (toolchains/native.profile): Triton .llir is compiled by clang,
  # and each variant's assembly is dumped by llvm-objdump.
  clang-19 llvm-19
)
# The RISC-V demo's (`setup.sh demo-board`), on top of the demo's: the rvv-clang19 profile's
# cross tools, the static riscv64 agentd's libraries built from Debian source packages
# (scripts/target_deps.sh), and the virtual board's Linux, built from Debian's kernel source
# (scripts/vboard.sh); with qemu from backports (below).
board_packages=(
  lld-19 gcc-riscv64-linux-gnu g++-riscv64-linux-gnu
  dpkg-dev autoconf automake libtool
  linux-source-6.12 flex bison bc xz-utils
)
# Everything else: what the tests, the benchmarks and the target tier use.
packages=(
  "${demo_packages[@]}"
  "${board_packages[@]}"
  libdlib-dev  # bench/search_replay's dlib row: its global optimizer against khost's bayes
  linux-perf clang-format
  hyperfine  # bench/variability.sh measures against it
  likwid  # bench/roofline.sh: likwid-bench, the anchor of khost roofline's ceilings
  # The PostgreSQL server's binaries for the database tests, which start a server of their own
  # (initdb, pg_ctl).
  postgresql-15

  # khost tune: the other cross toolchain its tests build for.
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu

  # scripts/fuzz.sh: libFuzzer and clang's sanitizer runtimes; zstd for the campaigns' corpora
  # (tests/fuzz/campaign/*.tar.zst).
  libclang-rt-19-dev zstd

  # khost analyze's tests load the HTML report in headless Chromium and check the statistics
  # (Boost.Math, in libboost-dev) against scipy.
  chromium python3-scipy

  # A compile farm for khost tune --launcher distcc: its test and benchmark start their own
  # distccd on a loopback port (the package's own daemon stays off, as Debian ships it).
  distcc

  # Agents reached by ssh (khost agent add --ssh, deploy); its tests start their own sshd on a
  # loopback port, and the side-by-side benchmark copies with scp and counts with perf.
  openssh-client openssh-server

  # scripts/lava.sh talks to the LAVA lab's REST API with curl (lava-server itself: below).
  curl
)
# qemu 7.2 (bookworm) aborts on RVV float->int conversions; qemu 10 from bookworm-backports does
# not. qemu-system-riscv brings OpenSBI 1.5 (the SBI PMU extension the virtual board counts with).
# qemu-system-x86 is for LAVA's dispatcher (below; through python3-guestfs): bookworm's 7.2 would
# conflict with backports' qemu-system-common 10.
board_backports_packages=(qemu-user qemu-system-riscv)
backports_packages=("${board_backports_packages[@]}" qemu-system-x86)
# A loopback LAVA lab (scripts/lava.sh) that the LAVA tests submit the virtual board's jobs to.
# lava-server's postinst creates its database and applies the migrations, so the system's
# PostgreSQL cluster (lava_pg, from postgresql-15 above) must run while it is installed; without
# systemd nothing starts it, and nothing starts LAVA's services (scripts/lava.sh does).
lava_packages=(lava-server lava-dispatcher)
lava_pg=(15 main)
backports_list=/etc/apt/sources.list.d/ktune-backports.list
# deb-src for apt-get source (scripts/target_deps.sh), in Debian 12's deb822 format.
src_list=/etc/apt/sources.list.d/ktune-src.sources
# apt_archive, apt_has_entry: what the machine's apt sources already have.
# shellcheck source=scripts/apt_sources.sh
. "$repo/scripts/apt_sources.sh"

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

# install_missing demo|demo-board|all: the demo's packages, the RISC-V demo's, or every package
# (with the backports', the LAVA lab's and the deb-src entry that scripts/target_deps.sh
# fetches source packages from).
install_missing() {
  local want=("${packages[@]}") want_bp=("${backports_packages[@]}")
  local want_lava=("${lava_packages[@]}") want_src=1
  case "$1" in
    demo) want=("${demo_packages[@]}") want_bp=() want_lava=() want_src=0 ;;
    demo-board)
      want=("${demo_packages[@]}" "${board_packages[@]}") want_bp=("${board_backports_packages[@]}")
      want_lava=()
      ;;
  esac
  local missing=() missing_bp=()
  for p in "${want[@]}"; do installed "$p" || missing+=("$p"); done
  for p in "${want_bp[@]}"; do
    # The backports build is what we want; an older one from bookworm itself does not count.
    if ! installed "$p" || ! dpkg-query -W -f='${Version}' "$p" | grep -q bpo; then
      missing_bp+=("$p")
    fi
  done
  local need_src=0
  [ $want_src = 1 ] && ! apt-cache showsrc libzstd 2>/dev/null | grep -q '^Version:' && need_src=1
  local missing_lava=()
  for p in "${want_lava[@]}"; do installed "$p" || missing_lava+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && [ ${#missing_bp[@]} -eq 0 ] && [ ${#missing_lava[@]} -eq 0 ] &&
    [ $need_src = 0 ] && return 0
  # The entries are added on the Debian archive the machine already uses (scripts/apt_sources.sh),
  # and only if no source file has them yet.
  local add_src=0 add_bp=0 found
  if [ $need_src = 1 ] && [ ! -f "$src_list" ]; then
    if found=$(apt_has_entry /etc/apt deb-src bookworm); then
      echo "setup: $found already has a bookworm deb-src entry; not adding $src_list"
    else
      add_src=1
    fi
  fi
  if [ ${#missing_bp[@]} -gt 0 ] && [ ! -f "$backports_list" ]; then
    if found=$(apt_has_entry /etc/apt deb bookworm-backports); then
      echo "setup: $found already has bookworm-backports; not adding $backports_list"
    else
      add_bp=1
    fi
  fi
  if [ $add_src = 1 ] || [ $add_bp = 1 ]; then apt_archive /etc/apt; fi
  if [ $add_src = 1 ]; then
    echo "setup: adding Debian's bookworm deb-src entry to $src_list"
    printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: %s\n' \
      "$apt_archive_uri" "$apt_archive_keyring" | as_root tee "$src_list" >/dev/null
  fi
  if [ $add_bp = 1 ]; then
    echo "setup: adding Debian's bookworm-backports to $backports_list"
    echo "deb [signed-by=$apt_archive_keyring] $apt_archive_uri bookworm-backports main" |
      as_root tee "$backports_list" >/dev/null
  fi
  as_root apt-get update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    local had_sshd=0
    installed openssh-server && had_sshd=1
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}"
    # Only the sshd binary is wanted (the ssh tests start their own on loopback): a machine that
    # did not serve ssh before does not start serving it on every address now.
    if [ $had_sshd = 0 ] && command -v systemctl >/dev/null &&
      systemctl is-enabled ssh.service >/dev/null 2>&1; then
      echo "setup: openssh-server was installed for its sshd binary; disabling the ssh service"
      as_root systemctl disable --now ssh.service ssh.socket >/dev/null 2>&1 || true
    fi
  fi
  if [ ${#missing_bp[@]} -gt 0 ]; then
    echo "setup: installing ${missing_bp[*]} from bookworm-backports"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      -t bookworm-backports "${missing_bp[@]}"
  fi
  if [ ${#missing_lava[@]} -gt 0 ]; then install_lava "${missing_lava[@]}"; fi
}

# install_lava PACKAGES...: after qemu-system-x86 from backports (lava-dispatcher depends on it),
# with the PostgreSQL cluster up for lava-server's postinst. A cluster this function started is
# stopped again (scripts/lava.sh up starts it when a lab comes up).
install_lava() {
  local started_pg=0
  if ! as_root pg_ctlcluster "${lava_pg[@]}" status >/dev/null 2>&1; then
    if ! pg_lsclusters -h 2>/dev/null | awk -v v="${lava_pg[0]}" -v c="${lava_pg[1]}" \
      '$1 == v && $2 == c { found = 1 } END { exit !found }'; then
      echo "setup: creating PostgreSQL cluster ${lava_pg[*]} for lava-server"
      as_root pg_createcluster "${lava_pg[@]}" >/dev/null
    fi
    echo "setup: starting PostgreSQL cluster ${lava_pg[*]} for lava-server's postinst"
    as_root pg_ctlcluster "${lava_pg[@]}" start
    started_pg=1
  fi
  # A lava-server whose postinst failed before (the cluster was down) is left unpacked, and
  # apt-get refuses to go on until it is configured.
  as_root env DEBIAN_FRONTEND=noninteractive dpkg --configure --pending
  echo "setup: installing $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
  if [ $started_pg = 1 ]; then
    echo "setup: stopping PostgreSQL cluster ${lava_pg[*]} again (scripts/lava.sh up starts it)"
    as_root pg_ctlcluster "${lava_pg[@]}" stop
  fi
}

# build DIR [--target T...] -- CMAKE_ARGS...
build() {
  local dir=$1 targets=()
  shift
  while [ "$1" != -- ]; do targets+=("$1"); shift; done
  shift
  cmake -S "$repo" -B "$dir" -G Ninja -DKTUNE_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" "${targets[@]}"
}

# build/, which demo, build and test share. A unity build (CMake's CMAKE_UNITY_BUILD: a folder's
# files compiled eight at a time, as build-asan/ is): about half the compile time. A plain
# `cmake -B DIR` compiles each file on its own, which is how a file that does not include what it
# uses shows. release_build [--target T...]: the demo builds only khost and agentd; the test
# command goes on in the same tree.
release_build() {
  build "$repo/build" "$@" -- -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON
}

# Debian's kernels default kernel.perf_event_paranoid to 3, which forbids perf_event_open to users
# altogether; 2 (upstream's default) lets a user count their own processes. Root needs nothing.
allow_user_perf() {
  [ "$(id -u)" = 0 ] && return 0
  local level
  level=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
  [ "$level" -le 2 ] && return 0
  echo "setup: kernel.perf_event_paranoid is $level, which denies perf counters to users;" \
       "setting it to 2 until reboot (sudo sysctl)"
  as_root sysctl -q -w kernel.perf_event_paranoid=2
}

case "$action" in
  demo | demo-board) install_missing "$action" ;;
  *) install_missing all ;;
esac
allow_user_perf
case "$action" in

  build)
    release_build
    ;;
  demo)
    release_build --target khost agentd
    "$repo/scripts/demo.sh" "$repo/build"
    ;;
  demo-board)
    release_build --target khost agentd
    # The static riscv64 agentd, then the board's kernel and initramfs (cached; the kernel takes
    # minutes the first time).
    "$repo/scripts/vboard.sh" build
    "$repo/scripts/demo_board.sh" "$repo/build"
    ;;
  test)
    if [ $sanitize = 1 ]; then
      dir="$repo/build-asan"
      build "$dir" -- -DCMAKE_BUILD_TYPE=Debug -DKTUNE_SANITIZE=ON -DCMAKE_UNITY_BUILD=ON
    else
      dir="$repo/build"
      release_build
    fi
    "$repo/scripts/check-format.sh"
    python3 "$repo/scripts/check_layers.py"
    # The target tier runs the static riscv64 agentd (scripts/build_agent.sh: libraries from
    # Debian source packages, cached in ~/.cache/ktune/target-deps) under qemu-user and on the
    # virtual board; `vboard.sh build` builds that agent, then the board's kernel and initramfs
    # (cached in ~/.cache/ktune/vboard; the kernel takes minutes the first time).
    "$repo/scripts/vboard.sh" build
    ctest --test-dir "$dir" --output-on-failure --parallel "$(nproc)"
    ;;
  *)
    echo "usage: scripts/setup.sh demo | demo-board | test [--sanitize] | build" >&2
    exit 2
    ;;
esac
