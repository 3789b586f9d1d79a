#!/usr/bin/env bash
# Where a repetition's time goes, seen by the scheduler: each method runs the workload N times on
# CPU CPU under `perf record -a` of the scheduler's tracepoints, and the table gives, per method,
# the median time from a workload's exec to its exit ("run"), from its exit to the next one's
# exec ("gap": what the tool does between two runs), and how often per run another task was
# switched in on that CPU while a workload ran there (kernel threads, the tool's own threads).
# Tracing costs time of its own: compare the methods with each other, not with bench/overhead.sh.
#
#   bench/sched_gaps.sh [BUILD_DIR]   (N=100, CPU=1, WORKLOAD=k10 (ok.elf, 10 ms) or true;
#                                      AGENT2: another build directory, whose agentd is traced
#                                      beside)
#
# Methods: bare (posix_spawn + waitpid under taskset), perf -r (perf stat -r N under taskset),
# agentd (khost run --reps N --warmup 0 --cpu CPU), and agentd of AGENT2.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
N=${N:-100}
CPU=${CPU:-1}
WORKLOAD=${WORKLOAD:-k10}
tmp=$(mktemp -d)
chmod 755 "$tmp"  # agentd as root runs kernels as nobody, who must reach the store
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"' EXIT

cc -O2 -o "$tmp/spawn_loop" "$repo/bench/spawn_loop.c"
mkdir -p "$tmp/root/w/run/bin"
case $WORKLOAD in true | k10) ;; *) echo "bench: WORKLOAD: true or k10" >&2; exit 2 ;; esac
if [ "$WORKLOAD" = k10 ]; then
  cp "$build/tests/elves/ok.elf" "$tmp/root/w/run/bin/w.elf"
  args=("" 10)
  args_json='["", "10"]'
else
  cp /bin/true "$tmp/root/w/run/bin/w.elf"
  args=()
  args_json='[]'
fi
printf '{"variants": [{"elf_path": "w/run/bin/w.elf", "args": %s}]}\n' "$args_json" \
  > "$tmp/root/w/run/configs.json"

start_agent() {  # build store: agentd in the background, its address in store.addr
  "$1/bin/agentd" --listen 127.0.0.1:0 --store "$2" --log-level error > "$2.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do grep -q listening "$2.out" 2>/dev/null && break; sleep 0.1; done
  sed -n 's/.* listening on \([^ ]*\) .*/\1/p' "$2.out" > "$2.addr"
}
start_agent "$build" "$tmp/store"
addr=$(cat "$tmp/store.addr")
[ -n "$addr" ] || { echo "bench: agentd did not start: $(cat "$tmp/store.out")" >&2; exit 1; }
methods=(bare perf_r agentd)
if [ -n "${AGENT2:-}" ]; then
  start_agent "$AGENT2" "$tmp/store2"
  addr2=$(cat "$tmp/store2.addr")
  [ -n "$addr2" ] || { echo "bench: AGENT2's agentd did not start" >&2; exit 1; }
  methods+=(agentd2)
fi

events=sched:sched_switch,sched:sched_process_exec,sched:sched_process_exit
record() {  # method
  local elf="$tmp/root/w/run/bin/w.elf" a=$addr
  case $1 in
    bare) set -- taskset -c "$CPU" "$tmp/spawn_loop" "$N" "$elf" "${args[@]}" ;;
    perf_r) set -- taskset -c "$CPU" perf stat -r "$N" -e task-clock "$elf" "${args[@]}" ;;
    agentd | agentd2)
      [ "$1" = agentd2 ] && a=$addr2
      set -- "$build/bin/khost" run w --root "$tmp/root" --agent "$a" --reps "$N" --warmup 0 \
        --events task-clock --cpu "$CPU" ;;
  esac
  (cd "$tmp/root" && perf record -q -a -e "$events" -o "$tmp/trace.data" -- "$@") \
    > /dev/null 2>&1
  perf script -i "$tmp/trace.data" 2> /dev/null
}

echo "| method | runs | run µs (exec→exit) | gap µs (exit→next exec) | other tasks on CPU $CPU per run |"
echo "|---|---|---|---|---|"
for m in "${methods[@]}"; do
  record "$m" | /usr/bin/python3 -c '
import re, statistics, sys
method, cpu = sys.argv[1], int(sys.argv[2])
label = {"bare": "bare", "perf_r": "perf -r", "agentd": "agentd",
         "agentd2": "agentd of AGENT2"}[method]
running = None  # pid of the workload between its exec and its exit
runs, gaps, others = [], [], 0
last_exit = None
start = 0.0
for line in sys.stdin:
    m = re.search(r"\[(\d+)\]\s+\S*\s*(\d+\.\d+):\s+sched:(\w+):(.*)", line)
    if not m:
        continue
    on_cpu, t, kind, rest = int(m.group(1)), float(m.group(2)), m.group(3), m.group(4)
    if kind == "sched_process_exec" and "w.elf" in rest:
        running = re.search(r"pid=(\d+)", rest).group(1)
        start = t
        if last_exit is not None:
            gaps.append((t - last_exit) * 1e6)
    elif kind == "sched_process_exit" and running and f"pid={running} " in rest:
        runs.append((t - start) * 1e6)
        last_exit, running = t, None
    elif kind == "sched_switch" and running and on_cpu == cpu:
        nxt = re.search(r"next_comm=(.*) next_pid=(\d+)", rest)
        if nxt and nxt.group(2) not in (running, "0"):
            others += 1
if not runs or not gaps:
    sys.exit(f"bench: no runs of the workload traced for {label}")
print(f"| {label} | {len(runs)} | {statistics.median(runs):.1f} | "
      f"{statistics.median(gaps):.1f} | {others / len(runs):.2f} |")
' "$m" "$CPU"
done
