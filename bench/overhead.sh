#!/usr/bin/env bash
# Per-measured-run overhead of agentd against perf, on /bin/true and on a ~10 ms kernel.
#
#   bench/overhead.sh [BUILD_DIR]      (N runs per long sweep, default 60; TRIALS, default 7;
#                                       WORKLOADS, default "true k10"; CPU: pin every method's
#                                       workload to that CPU, as a tuning user does; AGENT2:
#                                       another build directory, whose agentd is timed beside)
#
# Methods, each timed as a whole sweep, short (N/6 runs) and long (N runs), in every trial (the
# methods take turns within each trial, so drift of the machine affects all alike; medians over
# the trials):
#   bare       posix_spawn + waitpid in a C loop (the anchor: the workload and its exec)
#   perf -r    perf stat -r N -e task-clock WORKLOAD
#   perf each  separate `perf stat -e task-clock WORKLOAD` calls from a shell loop (the seed's way)
#   agentd     khost run --reps N --warmup 0 --events task-clock against a running agentd
#              (includes khost's start, the push check, the agent's journal and the host's file)
# Per run = (long sweep - short sweep) / (N - N/6): what one more repetition costs; fixed = the
# short sweep less its runs (a tool's start, connection, report). Overhead = per run - bare's per
# run. "amortized" is the older figure: the long sweep / N - bare's, fixed cost included.
# Prints a Markdown table.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
N=${N:-60}
N_SHORT=$((N / 6))
TRIALS=${TRIALS:-7}
read -r -a workloads <<< "${WORKLOADS:-true k10}"
for w in "${workloads[@]}"; do
  case $w in true | k10) ;; *) echo "bench: WORKLOADS: true or k10, not $w" >&2; exit 2 ;; esac
done
# With CPU set, bare and perf run under taskset (perf waits on that CPU while its workload runs)
# and khost asks agentd for --cpu (the kernel on that CPU, agentd's own threads off it).
pin=() cpu_opt=()
if [ -n "${CPU:-}" ]; then pin=(taskset -c "$CPU"); cpu_opt=(--cpu "$CPU"); fi
tmp=$(mktemp -d)
chmod 755 "$tmp"  # agentd as root runs kernels as nobody, who must reach the store
agent_pid= agent2_pid=
trap 'kill $agent_pid $agent2_pid 2>/dev/null || true; rm -rf "$tmp"' EXIT

cc -O2 -o "$tmp/spawn_loop" "$repo/bench/spawn_loop.c"
ok_elf="$build/tests/elves/ok.elf"
[ -x "$ok_elf" ] || { echo "bench: $ok_elf missing; build first" >&2; exit 1; }

# The two workloads as one-variant kernels in the seed's layout.
make_kernel() {  # name elf args-json
  mkdir -p "$tmp/root/$1/run/bin"
  cp "$2" "$tmp/root/$1/run/bin/$1.elf"
  printf '{"variants": [{"elf_path": "%s/run/bin/%s.elf", "args": %s}]}\n' "$1" "$1" "$3" \
    > "$tmp/root/$1/run/configs.json"
}
make_kernel true /bin/true '[]'
make_kernel k10 "$ok_elf" '["", "10"]'

start_agent() {  # agentd store out -> its address (its pid in out.pid)
  "$1" --listen 127.0.0.1:0 --store "$2" --log-level error > "$3" &
  echo $! > "$3.pid"
  for _ in $(seq 50); do grep -q listening "$3" 2>/dev/null && break; sleep 0.1; done
  sed -n 's/.* listening on \([^ ]*\) .*/\1/p' "$3"
}
addr=$(start_agent "$build/bin/agentd" "$tmp/store" "$tmp/agent.out")
agent_pid=$(cat "$tmp/agent.out.pid")
[ -n "$addr" ] || { echo "bench: agentd did not start: $(cat "$tmp/agent.out")" >&2; exit 1; }
methods=(bare perf_r perf_each agentd)
if [ -n "${AGENT2:-}" ]; then
  addr2=$(start_agent "$AGENT2/bin/agentd" "$tmp/store2" "$tmp/agent2.out")
  agent2_pid=$(cat "$tmp/agent2.out.pid")
  [ -n "$addr2" ] || { echo "bench: AGENT2's agentd did not start" >&2; exit 1; }
  methods+=(agentd2)
fi

now() { date +%s%N; }
sweep() {  # method workload runs -> nanoseconds for that many runs
  local method=$1 w=$2 n=$3 elf args t0
  elf="$tmp/root/$w/run/bin/$w.elf"
  if [ "$w" = k10 ]; then args=("" 10); else args=(); fi
  t0=$(now)
  case $method in
    bare) (cd "$tmp/root" && "${pin[@]}" "$tmp/spawn_loop" "$n" "$elf" "${args[@]}") ;;
    perf_r) (cd "$tmp/root" && "${pin[@]}" perf stat -r "$n" -x, -e task-clock "$elf" "${args[@]}") ;;
    perf_each) (cd "$tmp/root" && for _ in $(seq "$n"); do
                  "${pin[@]}" perf stat -x, -e task-clock "$elf" "${args[@]}"; done) ;;
    agentd | agentd2)
      local a=$addr
      [ "$method" = agentd2 ] && a=$addr2
      "$build/bin/khost" run "$w" --root "$tmp/root" --agent "$a" --reps "$n" --warmup 0 \
        --events task-clock "${cpu_opt[@]}" ;;
  esac > /dev/null 2>&1
  echo $(( $(now) - t0 ))
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

echo "| workload | method | µs/run | fixed ms | overhead µs/run | ÷ perf -r's | amortized overhead µs/run | ÷ perf -r's |"
echo "|---|---|---|---|---|---|---|---|"
for w in "${workloads[@]}"; do
  for _ in $(seq "$TRIALS"); do
    for m in "${methods[@]}"; do
      short=$(sweep "$m" "$w" "$N_SHORT")
      long=$(sweep "$m" "$w" "$N")
      echo "$short $long" >> "$tmp/$m.$w"
    done
  done
  # per method: per-run µs (slope), fixed ms, amortized µs/run over N
  stats() {
    local slope fixed amort
    slope=$(awk -v n="$N" -v s="$N_SHORT" '{print ($2 - $1) / (n - s) / 1000}' "$tmp/$1.$w" | median)
    fixed=$(awk -v n="$N" -v s="$N_SHORT" '{print ($1 - s * ($2 - $1) / (n - s)) / 1e6}' "$tmp/$1.$w" | median)
    amort=$(awk -v n="$N" '{print $2 / n / 1000}' "$tmp/$1.$w" | median)
    echo "$slope $fixed $amort"
  }
  read -r b_slope _ b_amort < <(stats bare)
  read -r r_slope _ r_amort < <(stats perf_r)
  name=$([ "$w" = true ] && echo /bin/true || echo "10 ms kernel (ok.elf)")
  for m in "${methods[@]}"; do
    read -r slope fixed amort < <(stats "$m")
    awk -v name="$name" -v m="$m" -v s="$slope" -v f="$fixed" -v a="$amort" -v bs="$b_slope" \
        -v ba="$b_amort" -v rs="$r_slope" -v ra="$r_amort" 'BEGIN {
      label = (m == "perf_r") ? "perf -r" : (m == "perf_each") ? "perf each" : \
              (m == "agentd2") ? "agentd of AGENT2" : m
      if (m == "bare") {
        printf "| %s | %s | %.1f | %.1f | | | | |\n", name, label, s, f
      } else {
        printf "| %s | %s | %.1f | %.1f | %.1f | %.2f | %.1f | %.2f |\n", name, label, s, f,
          s - bs, (s - bs) / (rs - bs), a - ba, (a - ba) / (ra - ba)
      }
    }'
  done
done
