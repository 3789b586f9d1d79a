#!/usr/bin/env bash
# The seed's pipeline and khost's, side by side over ssh on loopback, on one 32-variant bundle
# of the example matmul (khost tune --toolchain native --sample 32 --seed 1), issue 8.
#
#   bench/seed_pipeline.sh [BUILD_DIR]
#     VARIANTS=32 TRIALS=3 EVENTS=task-clock,page-faults,context-switches SWEEP_REPS=5
#
# The "board" is this machine behind an sshd of the script's own on a loopback port (a fresh
# host key and client key, as tests/integration/ssh_server.cc starts it). Every ssh connection,
# the seed's and khost's, goes through bench/count_relay (a ProxyCommand) that counts its bytes.
#   seed   ssh ControlMaster; `scp -r` of the bundle's files (the ELFs, test_data, configs.json:
#          what khost's bundle holds, in the seed's layout); one `ssh board perf stat -x, -e
#          EVENTS --append -o perf_stats.csv ELF ARGS` per ELF; `scp` of the CSV (and the
#          kernels' output) back. Unchanged re-push: the same `scp -r` again.
#   khost  `khost push` to an agentd on the board reached with --ssh (a forward over khost's
#          own ssh master); `khost run --reps 1 --warmup 0 --events EVENTS` (one measured run per
#          ELF, as the seed; writes perf_stats.csv); `khost report`.
# Each trial starts with new ssh masters, an empty board directory and an empty agent store;
# the seed and khost take turns within a trial; medians over trials.
# Then the sweep: `khost run --reps SWEEP_REPS` over one agentd pinned to CPU 0 (taskset), and
# over two, pinned to CPUs 0 and 1 (--agents).
# Prints Markdown tables.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
VARIANTS=${VARIANTS:-32}
TRIALS=${TRIALS:-3}
EVENTS=${EVENTS:-task-clock,page-faults,context-switches}
SWEEP_REPS=${SWEEP_REPS:-5}
khost="$build/bin/khost"
tmp=$(mktemp -d)
chmod 755 "$tmp"  # agentd runs kernels as nobody, who must reach its store
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  pkill -f -- "$tmp" 2> /dev/null || true  # ssh masters, relays
  rm -rf "$tmp"
}
trap cleanup EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache" XDG_DATA_HOME="$tmp/data"
fail() { echo "bench: $*" >&2; exit 1; }
quiet() { "$@" > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "failed: $*"; }; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null && return; sleep 0.05; done; cat "$tmp"/agent-*.out >&2 2> /dev/null; fail "nothing on port $1"; }

# The bundle, and the same files in the seed's layout.
cc -O2 -o "$tmp/count_relay" "$repo/bench/count_relay.c"
quiet "$khost" tune matmul --root "$tmp/root" --toolchain native --sample "$VARIANTS" --seed 1
run="$tmp/root/matmul/run"
mkdir -p "$tmp/stage/matmul/run/bin"
cp "$run"/bin/*.elf "$tmp/stage/matmul/run/bin/"
cp -r "$run/test_data" "$run/configs.json" "$tmp/stage/matmul/run/"
python3 -c 'import json, sys
for v in json.load(open(sys.argv[1]))["variants"]:
    print(" ".join(["./" + v["elf_path"]] + v["args"]))' "$run/configs.json" > "$tmp/variants"
[ "$(wc -l < "$tmp/variants")" = "$VARIANTS" ] || fail "configs.json does not list $VARIANTS variants"

# The board's sshd.
mkdir -p "$tmp/ssh" "$tmp/bytes" /run/sshd
for key in host_key client_key; do ssh-keygen -q -t ed25519 -N "" -f "$tmp/ssh/$key"; done
cp "$tmp/ssh/client_key.pub" "$tmp/ssh/authorized_keys"
ssh_port=$(free_port)
echo "[127.0.0.1]:$ssh_port $(cut -d' ' -f1,2 "$tmp/ssh/host_key.pub")" > "$tmp/ssh/known_hosts"
cat > "$tmp/ssh/sshd_config" << CONFIG
ListenAddress 127.0.0.1
Port $ssh_port
HostKey $tmp/ssh/host_key
AuthorizedKeysFile $tmp/ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AllowTcpForwarding yes
Subsystem sftp /usr/lib/openssh/sftp-server
PidFile $tmp/ssh/sshd.pid
LogLevel ERROR
CONFIG
/usr/sbin/sshd -D -e -f "$tmp/ssh/sshd_config" 2> "$tmp/ssh/sshd.log" &
pids+=($!)
wait_port "$ssh_port"
user=$(id -un)
ssh_opts=(-o "IdentityFile=$tmp/ssh/client_key" -o IdentitiesOnly=yes
          -o "UserKnownHostsFile=$tmp/ssh/known_hosts" -o StrictHostKeyChecking=yes -o BatchMode=yes
          -o "ProxyCommand=$tmp/count_relay $tmp/bytes %p")
seed_ssh=("${ssh_opts[@]}" -o ControlMaster=auto -o "ControlPath=$tmp/seed-%C" -o ControlPersist=600)
board="$user@127.0.0.1"

# agentd on the board, registered as an ssh agent; NAME PORT [CPU].
start_agent() {
  local pin=()
  [ -n "${3:-}" ] && pin=(taskset -c "$3")
  rm -rf "$tmp/store-$1"
  "${pin[@]}" "$build/bin/agentd" --listen "127.0.0.1:$2" --store "$tmp/store-$1" \
    --log-level error > "$tmp/agent-$1.out" 2>&1 &
  pids+=($!)
  eval "agent_pid_$1=$!"
  wait_port "$2"
}
stop_agent() { local v="agent_pid_$1"; kill "${!v}"; wait "${!v}" 2> /dev/null || true; }
add_agent() {  # NAME PORT
  local opts=()
  for o in "IdentityFile=$tmp/ssh/client_key" IdentitiesOnly=yes \
           "UserKnownHostsFile=$tmp/ssh/known_hosts" StrictHostKeyChecking=yes \
           "ProxyCommand=$tmp/count_relay $tmp/bytes %p"; do opts+=(--ssh-option "$o"); done
  quiet "$khost" agent add "$1" --ssh "$board:$ssh_port" --agent-port "$2" "${opts[@]}"
}
end_masters() { pkill -f -- "ControlPath=$tmp" 2> /dev/null || true; sleep 0.2; }

now() { date +%s%N; }
bytes() { find "$tmp/bytes" -type f -exec cat {} + | awk '{ s += $1 + $2 } END { print s + 0 }'; }
# phase NAME CMD...: appends "seconds bytes" of one timed step to $tmp/phase-NAME.
phase() {
  local name=$1 t0 b0
  shift
  b0=$(bytes); t0=$(now)
  "$@" > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "failed: $*"; }
  echo "$(( $(now) - t0 )) $(( $(bytes) - b0 ))" >> "$tmp/phase-$name"
}

seed_push() {
  ssh "${seed_ssh[@]}" -p "$ssh_port" "$board" "mkdir -p $tmp/board"
  scp -q -r "${seed_ssh[@]}" -P "$ssh_port" "$tmp/stage/matmul" "$board:$tmp/board/"
}
seed_run() {
  while read -r line; do
    ssh -n "${seed_ssh[@]}" -p "$ssh_port" "$board" "cd $tmp/board && perf stat -x, -e $EVENTS \
      --append -o perf_stats.csv $line >> kernels.out 2>&1"
  done < "$tmp/variants"
}
seed_fetch() {
  mkdir -p "$tmp/back"
  scp -q "${seed_ssh[@]}" -P "$ssh_port" "$board:$tmp/board/perf_stats.csv" \
    "$board:$tmp/board/kernels.out" "$tmp/back/"
}

board_port=$(free_port)
add_agent board "$board_port"
for t in $(seq "$TRIALS"); do
  end_masters
  rm -rf "$tmp/board" "$tmp/back"
  phase seed_push seed_push
  phase seed_repush seed_push
  phase seed_run seed_run
  phase seed_fetch seed_fetch
  [ "$(grep -c 'Running C Kernel' "$tmp/back/kernels.out")" = "$VARIANTS" ] ||
    fail "the seed's run measured fewer than $VARIANTS kernels"
  end_masters
  start_agent board "$board_port"
  phase khost_push "$khost" push matmul --root "$tmp/root" --agent board
  grep -q "$((VARIANTS + 4)) blobs sent" "$tmp/out" || { cat "$tmp/out" >&2; fail "first push"; }
  phase khost_repush "$khost" push matmul --root "$tmp/root" --agent board
  grep -q " 0 blobs sent" "$tmp/out" || fail "re-push sent blobs"
  phase khost_run "$khost" run matmul --root "$tmp/root" --agent board --reps 1 --warmup 0 \
    --events "$EVENTS"
  phase khost_report "$khost" report matmul --root "$tmp/root"
  [ "$(($(wc -l < "$run/perf_stats.csv") - 1))" = "$VARIANTS" ] || fail "perf_stats.csv rows"
  stop_agent board
done

# The sweep: one agent pinned to CPU 0, then two pinned to CPUs 0 and 1.
p0=$(free_port); p1=$(free_port)
add_agent b0 "$p0"; add_agent b1 "$p1"
start_agent b0 "$p0" 0; start_agent b1 "$p1" 1
quiet "$khost" push matmul --root "$tmp/root" --agent b0
quiet "$khost" push matmul --root "$tmp/root" --agent b1
for t in $(seq "$TRIALS"); do
  phase sweep1 "$khost" run matmul --root "$tmp/root" --agents b0 --reps "$SWEEP_REPS" --warmup 1 \
    --events "$EVENTS"
  phase sweep2 "$khost" run matmul --root "$tmp/root" --agents b0,b1 --reps "$SWEEP_REPS" \
    --warmup 1 --events "$EVENTS"
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
sec() { cut -d' ' -f1 "$tmp/phase-$1" | median | awk '{ printf "%.3f", $1 / 1e9 }'; }
byt() { cut -d' ' -f2 "$tmp/phase-$1" | median; }
mib() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1048576 }'; }

sp=$(sec seed_push); srp=$(sec seed_repush); sr=$(sec seed_run); sf=$(sec seed_fetch)
kp=$(sec khost_push); krp=$(sec khost_repush); kr=$(sec khost_run); kre=$(sec khost_report)
spb=$(byt seed_push); srpb=$(byt seed_repush); srb=$(byt seed_run); sfb=$(byt seed_fetch)
kpb=$(byt khost_push); krpb=$(byt khost_repush); krb=$(byt khost_run); kreb=$(byt khost_report)
se=$(awk -v a="$sp" -v b="$sr" -v c="$sf" 'BEGIN { printf "%.3f", a + b + c }')
ke=$(awk -v a="$kp" -v b="$kr" -v c="$kre" 'BEGIN { printf "%.3f", a + b + c }')
echo "| pipeline | first push s | first push MiB | unchanged re-push s | re-push MiB | run s | run MiB | results back s | end to end s | end to end MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
echo "| seed: scp -r, ssh perf stat per ELF, scp back (anchor) | $sp | $(mib "$spb") | $srp | $(mib "$srpb") | $sr | $(mib "$srb") | $sf | $se | $(mib $((spb + srb + sfb))) |"
echo "| khost push, run, report (ssh agent) | $kp | $(mib "$kpb") | $krp | $(mib "$krpb") | $kr | $(mib "$krb") | $kre | $ke | $(mib $((kpb + krb + kreb))) |"
awk -v se="$se" -v ke="$ke" -v spb="$spb" -v kpb="$kpb" -v krpb="$krpb" -v sr="$sr" -v kr="$kr" 'BEGIN {
  printf "\nend to end: %.2f× faster; run alone: %.2f×; first push bytes: %.1f%% of scp'"'"'s; unchanged re-push: %.3f%% of scp'"'"'s first push\n",
    se / ke, sr / kr, 100 * kpb / spb, 100 * krpb / spb }'
s1=$(sec sweep1); s2=$(sec sweep2)
echo
echo "| sweep ($VARIANTS variants, --reps $SWEEP_REPS --warmup 1) | s | speed-up |"
echo "|---|---|---|"
echo "| 1 agent, pinned to CPU 0 (anchor) | $s1 | 1.00× |"
awk -v a="$s1" -v b="$s2" 'BEGIN { printf "| 2 agents, pinned to CPUs 0 and 1 | %.3f | %.2f× |\n", b, a / b }'
