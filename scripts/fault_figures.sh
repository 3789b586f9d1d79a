#!/usr/bin/env bash
# The figures of docs/RELIABILITY.md: a 6-variant x 5-repetition sweep of spin.elf (60 ms each)
# interrupted twice on a local agentd -- khost SIGKILLed after 5 rows, then agentd SIGKILLed after
# 12 rows of a second run and restarted -- each resumed with khost run --resume; prints the rows
# on the host and in the agent's journal at each step. Needs a build (scripts/setup.sh build).
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
B=$repo/build/bin; E=$repo/build/tests/elves
dir=$(mktemp -d); chmod 711 "$dir"; cd "$dir"; trap 'rm -rf "$dir"' EXIT
rows() { [ -f "$1" ] && tail -n +2 "$1" | cut -d, -f4,8,10 | sort -u | wc -l || echo 0; }
mkdir -p work/k/run/bin work/k/run/test_data
for i in 0 1 2 3 4 5; do cp $E/spin.elf work/k/run/bin/$i.elf; done
python3 - <<'P'
import json
v=[{"B":i,"elf_path":f"k/run/bin/{i}.elf","args":["60"]} for i in range(6)]
json.dump({"variants":v,"perf_files":{"stat":"k/run/perf_stats.csv"}},open("work/k/run/configs.json","w"))
P
start_agent() { $B/agentd --listen 127.0.0.1:0 --store $dir/store --log-level warn > $1 2>&1 & AP=$!; sleep 1; A=$(sed -n 's/.* listening on \([^ ]*\) .*/\1/p' $1); }
start_agent agent.out
export XDG_CACHE_HOME=$dir/cache XDG_CONFIG_HOME=$dir/config XDG_DATA_HOME=$dir/data
echo "== khost SIGKILL mid-run"
$B/khost run k --root work --reps 5 --warmup 0 --agent $A > r1.out 2> r1.err & KP=$!
while [ "$(rows work/k/run/results/*.csv)" -lt 5 ]; do sleep 0.02; done
kill -9 $KP; wait $KP 2>/dev/null
F=$(ls work/k/run/results/*.csv)
echo "host rows at kill: $(rows $F) of 30"
$B/khost run k --root work --resume --agent $A > r2.out 2> r2.err; echo "resume exit $?: $(grep resumed r2.err)"
echo "host rows after: $(rows $F); lines $(($(wc -l < $F)-1)) (distinct keys == rows)"
mv work/k/run/results work/first
echo "== agentd SIGKILL mid-run"
$B/khost run k --root work --reps 5 --warmup 0 --agent $A > r3.out 2> r3.err & KP=$!
while [ -z "$(ls work/k/run/results/*.csv 2>/dev/null)" ]; do sleep 0.02; done
F=$(ls work/k/run/results/*.csv); RID=$(basename $F .csv); J=store/runs/$RID/results.csv
while [ "$(rows $J)" -lt 12 ]; do sleep 0.02; done
kill -9 $AP; wait $AP 2>/dev/null; wait $KP; echo "khost exit $?: $(tail -1 r3.err)"
echo "journal rows at kill: $(rows $J); host rows: $(rows $F)"
start_agent agent2.out
$B/khost run k --root work --resume --agent $A > r4.out 2> r4.err; echo "resume exit $?: $(grep resumed r4.err)"
echo "journal rows after: $(rows $J) lines $(($(wc -l < $J)-1)); host rows after: $(rows $F)"
kill $AP
