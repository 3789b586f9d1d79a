#!/usr/bin/env bash
# The table "Bad input and faults" of docs/RELIABILITY.md: a campaign of bad inputs and faults
# against the built khost and agentd -- results files cut, torn and repeated, a search journal
# giving a configuration twice, report -o into a device, a link and a FIFO, links leading out of
# the root, a second agentd on a store, three khost runs sharing the local agentd, kspecs too
# large or broken, variants that crash, bad numbers, agentd SIGKILLed mid-run, control bytes --
# each case independent. Prints a Markdown table, one row per case: the exit status and the most
# telling line of khost's or agentd's stderr (checks the script makes itself in [brackets]).
# Everything happens in a temporary directory (agents on 127.0.0.1:0 with stores inside it),
# removed on exit. Needs a build (scripts/setup.sh build); takes about a minute.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
B=$repo/build/bin; E=$repo/build/tests/elves
for f in $B/khost $B/agentd $E/ok.elf $E/segv.elf $E/spin.elf $E/hang.elf; do
  [ -x "$f" ] || { echo "bad_inputs.sh: $f missing: build first (scripts/setup.sh build)" >&2; exit 1; }
done
dir=$(mktemp -d); chmod 711 "$dir"; cd "$dir"
AP=; AP2=; CP=; Q1=; Q2=; Q3=; KP=
cleanup() {
  cd /
  for p in $Q1 $Q2 $Q3 $KP; do kill "$p" 2>/dev/null; done   # timeout passes it on to khost
  for p in $AP $AP2 $CP; do kill -9 "$p" 2>/dev/null; done
  # the local agentd of the khost runs given no agent (case "three khost run"), if one was left
  local addr=$dir/cache/ktune/local-agent.address lp
  if [ -f "$addr" ]; then
    lp=$(cut -d' ' -f1 "$addr")
    if [ -n "$lp" ] && tr '\0' ' ' < /proc/$lp/cmdline 2>/dev/null | grep -qF -- "--store $dir/"; then
      kill -9 "$lp" 2>/dev/null
    fi
  fi
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -m 755 cache config tmp
export XDG_CACHE_HOME=$dir/cache XDG_CONFIG_HOME=$dir/config XDG_DATA_HOME=$dir/data TMPDIR=$dir/tmp
unset KTUNE_AGENT KTUNE_TOKEN_FILE
t0=$(date +%s.%N)

# ---- helpers ------------------------------------------------------------------------------------
t() { timeout -k 5 120 "$@"; }   # no case may hang the campaign
# start_agent OUT STORE: an agentd on a free loopback port; sets P (pid) and ADDR
start_agent() {
  $B/agentd --listen 127.0.0.1:0 --store "$2" --log-level warn > "$1" 2>&1 & P=$!
  ADDR=
  for _ in $(seq 100); do
    ADDR=$(sed -n 's/.* listening on \([^ ]*\) .*/\1/p' "$1"); [ -n "$ADDR" ] && break; sleep 0.1
  done
}
# mk ROOT KERNEL N ELF [ARG]: a kernel directory in the seed's layout, N variants of one test ELF
mk() {
  local root=$1 k=$2 n=$3 elf=$4 arg=${5:-} i
  mkdir -p $root/$k/run/bin $root/$k/run/test_data
  for ((i = 0; i < n; i++)); do cp $E/$elf $root/$k/run/bin/$i.elf; done
  python3 - "$root" "$k" "$n" "$arg" <<'P'
import json, sys
root, k, n, a = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
v = [dict({"B": i, "elf_path": f"{k}/run/bin/{i}.elf"}, **({"args": [a]} if a else {})) for i in range(n)]
json.dump({"variants": v, "perf_files": {"stat": f"{k}/run/perf_stats.csv"}},
          open(f"{root}/{k}/run/configs.json", "w"))
P
}
# x N CMD...: runs a case's command, stdout to cN.out, stderr to cN.err; sets RC
x() { local n=$1; shift; t "$@" > c$n.out 2> c$n.err; RC=$?; }
# row N DESCRIPTION [REGEX [NOTE]]: one table row from cN.err and RC. The answer: the lines of
# stderr matching REGEX (all of them, joined by " · "), else the last line starting with "khost" or
# "agentd", else the last line; each cut at 260 characters, control bytes shown as \xNN (and
# said), '|' escaped, the temporary directory written $tmp, in a code span; NOTE (the script's
# own checks) after it.
row() {
  local n=$1 desc=$2 rx=${3:-} note=${4:-} a
  a=$(python3 - c$n.err "$rx" "$dir" <<'P'
import re, sys
text = open(sys.argv[1], "rb").read().decode("utf-8", "replace").replace(sys.argv[3], "$tmp")
lines = [l for l in text.split("\n") if l.strip()]
rx = sys.argv[2]
pick = []
if rx:
    for l in lines:
        if re.search(rx, l) and l not in pick:
            pick.append(l)
if not pick:
    k = [l for l in lines if re.match(r"(khost|agentd)\b", l)]
    pick = k[-1:] or lines[-1:]
raw = False
out = []
for l in pick:
    s = ""
    for c in l:
        if (ord(c) < 32 and c != "\t") or ord(c) == 127:
            s += "\\x%02x" % ord(c); raw = True
        else:
            s += c
    out.append(s if len(s) <= 260 else s[:260] + "…")
s = " · ".join(out).replace("|", "\\|")
if not s:
    print("(nothing on stderr)", end="")
else:
    tick = "``" if "`" in s else "`"
    print(f"{tick}{s}{tick}" + (" [a RAW control byte in stderr, escaped here]" if raw else ""), end="")
P
)
  printf '| %s | %s | %s | %s%s |\n' "$n" "$desc" "$RC" "$a" "${note:+ $note}"
}
n=0; nx() { n=$((n + 1)); }
csvrows() { tail -n +2 "$1" | cut -d, -f5,13 | sort -u | wc -l; }  # repetitions in a results file

echo "| # | input or fault | exit | what khost/agentd answer |"
echo "|---|---|---|---|"

# ---- the agent most cases use, and a finished run to damage ---------------------------------
start_agent agent.out $dir/store; AP=$P; A=$ADDR
if [ -z "$A" ]; then echo "bad_inputs.sh: agentd did not start: $(cat agent.out)" >&2; exit 1; fi
mk base k 2 ok.elf
t $B/khost run k --root base --reps 3 --warmup 0 --agent $A > base.out 2> base.err \
  || { echo "bad_inputs.sh: the base run failed: $(tail -1 base.err)" >&2; exit 1; }
RID=$(basename base/k/run/results/*.csv .csv)
BASECSV=$dir/base/k/run/results/$RID.csv
t $B/khost report k --root base > base.report 2>/dev/null
# a copy of the finished run under root cN
copy() { cp -a base c$1; F=c$1/k/run/results/$RID.csv; }
same_as_base() {
  if cmp -s "$1" $BASECSV; then echo "[the file is the uncut one again, byte for byte]"
  else echo "[the file DIFFERS from the uncut one: $(csvrows "$1") of $(csvrows $BASECSV) repetitions, $(wc -l < "$1") lines, uncut $(wc -l < $BASECSV)]"; fi
}

# ---- results files ------------------------------------------------------------------------------
nx; copy $n; truncate -s $(($(stat -c %s $F) / 2)) $F
x $n $B/khost report k --root c$n --fetch --agent $A
row $n "host results CSV cut at half its size after a finished run, then \`khost report k --fetch --agent A\`" \
  "completed|fetched" "$(same_as_base $F)"

nx; copy $n
per=$(tail -n +2 $F | cut -d, -f5,13 | uniq -c | head -1 | awk '{print $1}')   # lines per repetition
keep=$((1 + 2 * per + per / 2)); head -n $keep $BASECSV > $F
x $n $B/khost report k --root c$n --fetch --agent $A
row $n "the same file cut at a line end inside a repetition (\`head -n $keep\`: ${per} lines a repetition), then \`khost report k --fetch\`" \
  "completed|fetched" "$(same_as_base $F)"

nx; copy $n; tail -n 1 $BASECSV >> $F; tail -n 1 $BASECSV >> $F
x $n $B/khost report k --root c$n
if cmp -s c$n.out base.report; then note="[table as without them]"; else note="[the table CHANGED]"; fi
row $n "a results row line repeated twice at the end, then \`khost report k\`" "" "$note"

nx; copy $n; tail -n 1 $BASECSV | head -c 60 >> $F
x $n $B/khost analyze k --root c$n --no-plots
row $n "a torn last line (60 bytes of a row, no newline), then \`khost analyze k --no-plots\`" "unterminated"

nx; copy $n; mkdir -p c$n/k/run/searches
printf '# ktune evaluations 1\n# k by hand: B=0 measured, then given again with a fake time\nB,time_ns,status,run\n0,5000000,ok,%s\n1,6000000,ok,%s\n0,1e-06,ok,%s\n' \
  $RID $RID $RID > c$n/k/run/searches/20261127T000000.000Z-abcdef.csv
x $n $B/khost analyze k --root c$n --search all --no-plots
if grep -Eq '^ *1 +0 +5(\.0+)? +ok' c$n.out; then note="[B=0 kept at 5 ms, the first line's]"; else note="[B=0 NOT shown at 5 ms: $(grep -E '^ *[0-9]+ +0 ' c$n.out | head -1)]"; fi
row $n "a search journal (\`searches/<id>.csv\`) giving B=0 twice, the second a fake 1e-06 ns, then \`khost analyze k --search all --no-plots\`" \
  "again" "$note"

# ---- report -o into a device, a link, a FIFO -----------------------------------------------
nx; copy $n
x $n $B/khost report k --root c$n -o /dev/null
if test -c /dev/null; then note="[\`test -c /dev/null\`: still a character device]"; else note="[/dev/null is NO LONGER a character device]"; fi
row $n "\`khost report k -o /dev/null\` (as $(id -un))" "" "$note"

nx; copy $n; echo old > c$n/target.txt; ln -s target.txt c$n/link.txt
x $n $B/khost report k --root c$n -o c$n/link.txt
if [ -L c$n/link.txt ] && [ "$(readlink c$n/link.txt)" = target.txt ]; then note="[link.txt still a link to target.txt"; else note="[link.txt NO LONGER a link"; fi
if cmp -s c$n/target.txt base.report; then note="$note; target.txt holds the report]"; else note="$note; target.txt does NOT hold the report]"; fi
row $n "\`khost report k -o link.txt\`, a link to a file" "" "$note"

nx; copy $n; mkfifo c$n/fifo; cat c$n/fifo > c$n/fifo.out & CP=$!
x $n $B/khost report k --root c$n -o c$n/fifo
for _ in $(seq 30); do kill -0 $CP 2>/dev/null || break; sleep 0.1; done
if kill -0 $CP 2>/dev/null; then kill $CP; note="[the reader got no end of file]"; else note="[the reader got $(wc -c < c$n/fifo.out) bytes"; fi
wait $CP 2>/dev/null; CP=
cmp -s c$n/fifo.out base.report && note="$note, the report"
[ -p c$n/fifo ] && note="$note; fifo still a FIFO]" || note="$note; fifo NO LONGER a FIFO]"
row $n "\`khost report k -o fifo\`, a FIFO (a reader \`cat fifo > out &\` started first)" "" "$note"

# ---- links and paths leading out of the root ---------------------------------------------------
nx; mk c$n lk 2 ok.elf; rm c$n/lk/run/bin/1.elf; ln -s /etc/passwd c$n/lk/run/bin/1.elf
x $n $B/khost push lk --root c$n --agent $A
row $n "variant 1's \`elf_path\` \`bin/1.elf\`, a link to /etc/passwd, then \`khost push lk --agent A\`"

nx; mk c$n td 2 ok.elf; mkdir -p outside/data; echo '1 1' > outside/data/matrix_1x1_1.txt
rmdir c$n/td/run/test_data; ln -s $dir/outside/data c$n/td/run/test_data
x $n $B/khost push td --root c$n --agent $A
row $n "\`test_data\`, a link to a directory outside the root (\`\$tmp/outside/data\`), then \`khost push td\`"

nx; mk c$n ps 2 ok.elf; mkdir -p outside
python3 -c "
import json; p='c$n/ps/run/configs.json'; c=json.load(open(p))
c['perf_files']['stat']='$dir/outside/x.csv'; json.dump(c, open(p, 'w'))"
x $n $B/khost run ps --root c$n --agent $A --reps 1 --warmup 0
[ -e outside/x.csv ] && note="[outside/x.csv WRITTEN]" || note="[nothing written outside the root]"
row $n "configs.json's \`perf_files.stat\` an absolute path outside the root (\`\$tmp/outside/x.csv\`), then \`khost run ps\`" "" "$note"

nx; mk c$n pt 1 ok.elf
python3 -c "
import json; p='c$n/pt/run/configs.json'; c=json.load(open(p))
c['variants'][0]['elf_path']='../../../../etc/passwd'; json.dump(c, open(p, 'w'))"
x $n $B/khost push pt --root c$n --agent $A
row $n "\`elf_path\` \`../../../../etc/passwd\` in configs.json, then \`khost push pt\`"

# ---- agentd: one per store ----------------------------------------------------------------------
nx; x $n timeout 5 $B/agentd --listen 127.0.0.1:0 --store $dir/store --log-level warn
row $n "a second \`agentd --store S\` on the store of a running agentd (pid $AP)" "" \
  "$(grep -q "pid $AP" c$n.err && echo "[names pid $AP]" || echo "[does NOT name pid $AP]")"

# ---- three khost run without --agent at once ----------------------------------------------------
nx; for j in 1 2 3; do mk c$n q$j 2 spin.elf 100; done
pat="agentd --listen 127.0.0.1:0 --store $dir/cache/ktune/local-agent"
: > c$n.pids; : > c$n.counts
for j in 1 2 3; do t $B/khost run q$j --root c$n --reps 2 --warmup 0 > c$n.$j.out 2> c$n.$j.err & eval Q$j=\$!; done
while kill -0 $Q1 2>/dev/null || kill -0 $Q2 2>/dev/null || kill -0 $Q3 2>/dev/null; do
  pgrep -f "$pat" >> c$n.pids; pgrep -c -f "$pat" >> c$n.counts; sleep 0.05
done
rcs=; for j in 1 2 3; do eval wait \$Q$j; rcs="$rcs${rcs:+,}$?"; done
Q1=; Q2=; Q3=
sleep 0.5
left=$(pgrep -c -f "$pat")
overlap=$(python3 - c$n/q1/run/results/*.csv c$n/q2/run/results/*.csv c$n/q3/run/results/*.csv <<'P'
import csv, sys
spans = []
try:
    for f in sys.argv[1:]:  # each run from its first repetition's start to its last's end
        r = [x for x in csv.DictReader(open(f)) if x["name"] == "wall-time"]
        spans.append((min(int(x["timestamp_ns"]) for x in r),
                      max(int(x["timestamp_ns"]) + int(float(x["value"])) for x in r)))
except Exception as e:
    print(f"unknown ({e})"); sys.exit()
spans.sort()
print("yes" if any(spans[i][1] > spans[i + 1][0] for i in range(len(spans) - 1))
      else f"no ({len(spans)} runs, one after another)")
P
)
cat c$n.1.err c$n.2.err c$n.3.err > c$n.err; RC=$rcs
row $n "three \`khost run qN\` without --agent at once (\$XDG_CACHE_HOME in the temp dir), spin.elf 100 ms x 2 variants x 2 reps each" \
  "queued, 2 ahead" "[agentd processes: $(sort -u c$n.pids | wc -l) in all, at most $(sort -n c$n.counts | tail -1) at once, $left left after; exits $rcs; the runs' time spans overlap: $overlap]"

# ---- kernel specs ------------------------------------------------------------------------------
mkdir -p kernels; cp -a $repo/kernels/matmul $repo/kernels/common kernels/
K="--kernels $dir/kernels --toolchain native"
# spec NAME PARAM-LINE [SHAPE-LINE [KERNEL_SOURCE(yes|no) [MAIN-BODY]]]: kernels/NAME/NAME.kspec
spec() {
  local k=$1 param=$2 shape=${3:-"shape: N=4 RUN_COUNT=1"} ks=${4:-yes}
  local body=${5:-'printf("%d\nout OK\nRunning C Kernel Time: 0.001 s\n", '$k'_kernel(P)); return 0;'}
  mkdir -p kernels/$k
  printf '#include <signal.h>\n#include <stdio.h>\nint %s_kernel(int);\nint main(void) { %s }\n' $k "$body" > kernels/$k/main.c
  printf 'int %s_kernel(int x) { return x + 1; }\n' $k > kernels/$k/${k}_kernel.c
  { echo "kernel: $k"; echo "main: main.c"; [ $ks = yes ] && echo "kernel_source: ${k}_kernel.c"
    printf '%s\n' "$param"; echo "$shape"; echo "args: {N}"; } > kernels/$k/$k.kspec
}
nx; spec big "param: P = $(seq -s ' ' 1 1000000)"
s=$(date +%s.%N); x $n $B/khost tune big $K --root c$n; e=$(date +%s.%N)
row $n "a kspec param with 10^6 candidate values ($(($(stat -c %s kernels/big/big.kspec) / 1000)) kB spec), \`khost tune big\`" "" \
  "[$(awk -v s=$s -v e=$e 'BEGIN { printf "%.2f", e - s }') s]"

nx; spec tk "param: P = 1 2"
x $n $B/khost tune tk $K --root c$n -j 100000
row $n "\`khost tune tk -j 100000\`"

nx; x $n $B/khost tune tk $K --root c$n --shape RUN_COUNT=99999999999
row $n "\`khost tune tk --shape RUN_COUNT=99999999999\`"

nx; spec zero "param: P = 1 2" "shape: N=0"
x $n $B/khost tune zero $K --root c$n
row $n "a spec with \`shape: N=0\`, \`khost tune\`"

nx; spec nks "param: P = 1 2" "shape: N=4" no
x $n $B/khost tune nks $K --root c$n
row $n "a spec without \`kernel_source\` whose main calls an undefined \`nks_kernel\`, \`khost tune\`"

nx; spec cb $'param: P = 1 2\x1b[31m\x07 3'
x $n $B/khost tune cb $K --root c$n
row $n "a kspec param value with raw control bytes (\`P = 1 2<ESC>[31m<BEL> 3\`), \`khost tune cb\`" "" \
  "[raw ESC on stderr: $(grep -c $'\x1b' c$n.err) lines, raw BEL: $(grep -c $'\x07' c$n.err)]"

# ---- variants that crash -----------------------------------------------------------------------
nx; mk c$n sv 2 segv.elf
x $n $B/khost run sv --root c$n --agent $A --reps 2 --warmup 0
row $n "\`khost run sv\`, every variant segfaults (segv.elf)"

nx; spec sg "param: P = 1 2" "shape: N=4" yes 'printf("%d\n", sg_kernel(P)); raise(SIGSEGV); return 0;'
x $n $B/khost tune sg $K --root c$n --check
row $n "\`khost tune sg --check\`, main raises SIGSEGV" "killed by" ""

# a native matmul at 16x16x16 (about 2 s) for the next two cases
t $B/khost tune matmul $K --root nat0 --sample 1 --shape M=16 --shape N=16 --shape K=16 > nat0.out 2> nat0.err
if [ $? -ne 0 ]; then nx; cp nat0.err c$n.err; RC=1; row $n "\`khost tune matmul --toolchain native\` (needed by the next cases) FAILED"; fi
nx; cp -a nat0 c$n; rm -f c$n/matmul/run/test_data/matrix_16x16_3.txt
x $n $B/khost run matmul --root c$n --agent $A --reps 1 --warmup 0
row $n "\`khost run matmul\` (native, 16x16x16) with its golden \`matrix_16x16_3.txt\` deleted" "failed:"

nx; mkdir c$n; cp -a nat0/matmul c$n/; mv c$n/matmul/run/test_data c$n/data; ln -s ../../data c$n/matmul/run/test_data
ls store/bundles > c$n.before
x $n $B/khost run matmul --root c$n --agent $A --reps 1 --warmup 0
paths=$(for b in $(ls store/bundles | grep -vxFf c$n.before); do
  (cd store/bundles/$b/tree && find . -name 'matrix_*' -printf '%P\n')
done | sort | tr '\n' ' ' | sed 's/ $//')
row $n "the same kernel with \`test_data\` a link to \`data/\`, a directory inside the root, \`khost run matmul\`" "failed:|rows in" \
  "[the bundle holds the test data as: ${paths:-nothing new}]"

nx; mk c$n hg 1 hang.elf
x $n $B/khost run hg --root c$n --agent $A --reps 1 --warmup 0 --timeout 1
row $n "a variant that hangs (hang.elf), \`khost run hg --timeout 1\`" "failed:|no variant"

# ---- numbers out of range ------------------------------------------------------------------------
mk num k 2 ok.elf
nx; x $n $B/khost run k --root num --agent $A --cooldown 99999999999; row $n "\`khost run k --cooldown 99999999999\`"
nx; x $n $B/khost tune tk $K --root c$n --check --check-timeout 0; row $n "\`khost tune tk --check --check-timeout 0\`"
nx; x $n $B/khost tune tk $K --root c$n -j -1; row $n "\`khost tune tk -j -1\`"
nx; x $n $B/khost run k --root num --agent $A --reps 0; row $n "\`khost run k --reps 0\`"
nx; x $n $B/khost run k --root num --agent $A --timeout abc; row $n "\`khost run k --timeout abc\`"
nx; x $n $B/khost run k --root num --agent $A --cpu -5; row $n "\`khost run k --cpu -5\`"

# ---- agentd SIGKILLed mid-run, restarted -----------------------------------------------------
nx; SP=c$n; mk $SP sp 1 spin.elf 300
start_agent agent2.out $dir/store2; AP2=$P; A2=$ADDR
t $B/khost run sp --root c$n --agent $A2 --reps 4 --warmup 0 > c$n.out 2> c$n.err & KP=$!
for _ in $(seq 300); do
  f=$(ls c$n/sp/run/results/*.csv 2>/dev/null); [ -n "$f" ] && [ "$(csvrows $f)" -ge 1 ] && break; sleep 0.05
done
kill -9 $AP2; wait $AP2 2>/dev/null; AP2=; wait $KP; RC=$?; KP=
SPRID=$(basename "$(ls c$n/sp/run/results/*.csv 2>/dev/null)" .csv)
row $n "agentd SIGKILLed while \`khost run sp\` measures (spin.elf 300 ms, 4 reps), after the first row" "" \
  "$(grep -qF -- "--resume --run $SPRID" c$n.err && echo "[names \`--resume --run $SPRID\`]" || echo "[does NOT name the resume command]")"

nx; start_agent agent3.out $dir/store2; AP2=$P; A2=$ADDR
x $n $B/khost run sp --root $SP --agent $A2 --resume --run $SPRID
row $n "agentd restarted on its store, then \`khost run sp --resume --run ID\`" "resumed|rows in" \
  "[host file: $(csvrows $SP/sp/run/results/$SPRID.csv) of 4 repetitions; journal: $(csvrows store2/runs/$SPRID/results.csv) distinct, $(($(wc -l < store2/runs/$SPRID/results.csv) - 1)) lines]"
kill $AP2; wait $AP2 2>/dev/null; AP2=

# ---- classics ---------------------------------------------------------------------------------------
nx; x $n $B/khost frobnicate; row $n "an unknown command, \`khost frobnicate\`" "unknown"
nx; x $n $B/khost run k --root num --agent $A --frob; row $n "an unknown option, \`khost run k --frob\`"
nx; x $n $B/khost run nosuch --root num --agent $A; row $n "a missing kernel directory, \`khost run nosuch\`"
nx; x $n $B/khost run k --root num --agent 127.0.0.1:1; row $n "an agent address nobody listens on, \`--agent 127.0.0.1:1\`"
nx; x $n $B/khost run k --root num --agent 'gar bage::!'; row $n "\`--agent 'gar bage::!'\`"
nx; mkdir -p c$n/nj/run/bin; echo '{"variants": [' > c$n/nj/run/configs.json
x $n $B/khost run nj --root c$n --agent $A; row $n "a configs.json that is not JSON (\`{\"variants\": [\`)"
nx; mkdir -p c$n/ev/run/bin; echo '{"variants": []}' > c$n/ev/run/configs.json
x $n $B/khost run ev --root c$n --agent $A; row $n "a configs.json with no variants, \`khost run ev\`"
nx; mk c$n me 1 ok.elf; rm c$n/me/run/bin/0.elf
x $n $B/khost push me --root c$n --agent $A; row $n "an \`elf_path\` naming a missing file, \`khost push me\`"
nx; x $n $B/khost report k --root base --format xml; row $n "\`khost report k --format xml\`"
nx; x $n $B/khost run k --root num --agent $A --resume --run 20990101T000000.000Z-000000
row $n "\`khost run k --resume --run\` a run that does not exist"
nx; x $n timeout 5 $B/agentd --listen 0.0.0.0:0 --store $dir/store3 --log-level warn
row $n "\`agentd --listen 0.0.0.0:0\` without \`--token-file\`"

kill $AP; wait $AP 2>/dev/null; AP=
echo "bad_inputs.sh: $n cases in $(awk -v s=$t0 -v e=$(date +%s.%N) 'BEGIN { printf "%.0f", e - s }') s" >&2
