#!/usr/bin/env bash
# A loopback-only LAVA lab on this machine (LAVA 2023.01 from Debian 12, installed by
# scripts/setup.sh), for the tests that submit the virtual board's jobs (scripts/vboard.sh build;
# scripts/lava/vboard-job.yaml) to a real LAVA. No systemd: every daemon is started here, by hand,
# in a session of its own, and stopped by its pid file.
#
#   scripts/lava.sh up DIR [--devices N] [--port P] [--memory MB]
#       starts what is not running: the system's PostgreSQL cluster 15/main (LAVA's database),
#       lava-publisher (events), gunicorn3 lava_server.wsgi on 127.0.0.1:P, lava-scheduler and
#       the worker ktune-worker; creates what is absent: the user admin and its API token, the
#       worker, the device type qemu and the devices qemu01..qemuN (default 1) on that worker
#       with their device dictionaries (no KVM, MB of memory, default 1024); devices of the type
#       past N are retired. Waits until the API answers and the worker is Online, and prints a
#       line per thing done or found done. Port: --port P, else the one kept in DIR/port by an
#       earlier up, else a free loopback port from the kernel (a lab never collides with a port
#       in use; a test reads DIR/url). The publisher's two ports are chosen the same way.
#   scripts/lava.sh down DIR      cancels the type's unfinished jobs (and waits for them), then
#                                 stops what up started, by the pid files in DIR (the worker with
#                                 what its jobs left; PostgreSQL only if up started it); the
#                                 database, its jobs and its logs stay
#   scripts/lava.sh status DIR    each process, the API, the worker and the devices; exit 1 if
#                                 the lab is not fully up
#
# What DIR holds for a test:
#   url            http://127.0.0.1:P/ (the REST API is under api/v0.2/)
#   token          the admin's API token, mode 0600 (header "Authorization: Token T")
#   devices        the device names, one a line;  worker: the worker's name;  port: P
#   lava.env       LAVA_URL=, LAVA_TOKEN_FILE=, LAVA_DEVICES= (space-separated), LAVA_WORKER=
#   *.pid, *.log   gunicorn, lava-scheduler, lava-worker, lava-publisher; worker-token (0600);
#                  publisher-port, events-port (the events' ipc socket: /run/ktune-lava);
#                  postgresql.started if up started the cluster
# Root only (it starts LAVA's services and writes /etc/lava-server/dispatcher-config/devices).
# Calls are serialized by a lock, and one lab runs at a time (LAVA's database and the worker
# are the machine's): up from a second DIR while one runs fails, naming it. A failed up leaves
# what it started running: down DIR stops it.
set -euo pipefail
shopt -s inherit_errexit

pg_cluster=(15 main)
worker_name=ktune-worker
admin_user="admin"
device_type=qemu
device_dicts=/etc/lava-server/dispatcher-config/devices
lock_file=/run/lock/ktune-lava.lock
lab_file=/run/lock/ktune-lava.dir
run_dir=/run/ktune-lava  # the events' ipc socket
api_wait=60     # seconds for gunicorn to answer
worker_wait=60  # seconds for the worker to be Online
stop_wait=20    # seconds for a process to end on SIGTERM before SIGKILL
ping_interval=2 # seconds between the worker's polls of the server

say() { echo "lava: $*"; }
die() { echo "lava: $*" >&2; exit 1; }

usage() {
  echo "usage: scripts/lava.sh up DIR [--devices N] [--port P] [--memory MB] | down DIR | status DIR" >&2
  exit 2
}

need_root() {
  [ "$(id -u)" = 0 ] || die "must run as root (it starts LAVA's services and writes /etc/lava-server)"
}

need_tools() {
  local t
  for t in lava-server lava-worker gunicorn3 pg_ctlcluster python3 curl setsid flock runuser; do
    command -v "$t" >/dev/null ||
      die "$t is missing: run scripts/setup.sh (it installs lava-server, lava-dispatcher, curl)"
  done
}

# Serializes up/down/status on the machine; fd 9 is closed for every daemon started (else a
# daemon would hold the lock for its whole life).
take_lock() {
  exec 9>"$lock_file"
  flock -w 300 9 || die "another scripts/lava.sh held $lock_file for 300 s"
}

# --- processes ----------------------------------------------------------------------------------

# alive NAME PATTERN [DIR]: DIR/NAME.pid names a live process whose command line has PATTERN (a pid
# file left by a process that died, its pid reused since, does not count).
alive() {
  local pidfile="${3:-$dir}/$1.pid" pid
  [ -f "$pidfile" ] || return 1
  pid=$(cat "$pidfile")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  tr '\0' ' ' 2>/dev/null < "/proc/$pid/cmdline" | grep -q -- "$2"
}

pid_of() { cat "$dir/$1.pid"; }

# launch NAME CMD...: CMD in a session of its own (it outlives the caller and its terminal), its
# output appended to DIR/NAME.log, its pid in DIR/NAME.pid. setsid does not fork here (a
# background job of a non-interactive shell is no group leader), so $! is the daemon itself.
launch() {
  local name=$1
  shift
  setsid "$@" </dev/null >>"$dir/$name.log" 2>&1 9>&- &
  echo $! > "$dir/$name.pid"
}

descendants() {  # PID: its descendants' pids, children first
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}

elapsed() {  # T0 (date +%s%N): seconds since, to a tenth
  local ms=$((($(date +%s%N) - $1) / 1000000))
  printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}

still_alive() {  # PID...: those that still live
  local p
  for p in "$@"; do kill -0 "$p" 2>/dev/null && echo "$p"; done
  return 0
}

# wait_gone SECONDS PID...: waits until none of the processes lives; prints those still alive.
wait_gone() {
  local seconds=$1 i
  shift
  for ((i = 0; i < seconds * 10; i++)); do
    [ -z "$(still_alive "$@")" ] && return 0
    sleep 0.1
  done
  still_alive "$@"
}

# stop_process NAME PATTERN: SIGTERM to the process, then to its descendants still there (a
# worker leaves its jobs' lava-run and qemu running when it ends, as its unit's KillMode=process
# wants; gunicorn ends its own workers), SIGKILL to whatever is left after stop_wait s.
stop_process() {
  local name=$1 pattern=$2
  if ! alive "$name" "$pattern"; then
    say "$name was not running"
    rm -f "$dir/$name.pid"
    return 0
  fi
  local pid pids=() left t0
  t0=$(date +%s%N)
  pid=$(pid_of "$name")
  mapfile -t pids < <(descendants "$pid")
  kill -TERM "$pid" 2>/dev/null || true
  left=$(wait_gone "$stop_wait" "$pid")
  if [ ${#pids[@]} -gt 0 ]; then
    # shellcheck disable=SC2046  # pids are words
    kill -TERM $(still_alive "${pids[@]}") 2>/dev/null || true
    left="$left $(wait_gone "$stop_wait" "${pids[@]}")"
  fi
  # shellcheck disable=SC2086,SC2116  # words, trimmed
  left=$(echo $left)
  if [ -n "$left" ]; then
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null || true
    say "stopped $name (pid $pid; SIGKILL to $left after $stop_wait s)"
  else
    say "stopped $name (pid $pid, ${#pids[@]} descendants, in $(elapsed "$t0") s)"
  fi
  rm -f "$dir/$name.pid"
}

# port_free PORT: nothing listens on 127.0.0.1:PORT (bash's connect, not a Python start: ~1 s
# on a busy machine).
port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# One lab at a time: its database objects and its worker are the machine's. The lab's DIR is
# kept in lab_file while it runs.
check_one_lab() {
  local other p
  other=$(cat "$lab_file" 2>/dev/null) || other=""
  if [ -n "$other" ] && [ "$other" != "$dir" ]; then
    for p in lava-worker:lava-worker lava-scheduler:lava-scheduler gunicorn:lava_server.wsgi \
      lava-publisher:lava-publisher; do
      alive "${p%%:*}" "${p#*:}" "$other" &&
        die "a lab already runs from $other (its ${p%%:*}, pid $(cat "$other/${p%%:*}.pid")): scripts/lava.sh down $other"
    done
  fi
  echo "$dir" > "$lab_file"
}

# --- the REST API -------------------------------------------------------------------------------

# api_get PATH: the body of GET URL/api/v0.2/PATH, as the admin once DIR/token exists (the token
# goes to curl on its standard input, not on its command line); fails when the server does not
# answer or answers with an error. curl, not Python: a Python start costs ~1 s on a busy 2-core
# machine, and status reads one answer per device.
api_get() {
  local auth=""
  [ -f "$dir/token" ] && auth="header = \"Authorization: Token $(cat "$dir/token")\""
  curl -fsS --max-time 5 -K - "${url}api/v0.2/$1" 2>/dev/null <<< "$auth"
}

# json_field KEY BODY: the value of a top-level string or number field of DRF's compact JSON.
json_field() {
  local value
  value=$(sed -n 's/.*"'"$1"'":"\{0,1\}\([^",}]*\).*/\1/p' <<< "$2")
  [ -n "$value" ] && echo "$value"
}

api_field() {  # PATH KEY
  local body
  body=$(api_get "$1") && json_field "$2" "$body"
}

# --- PostgreSQL ---------------------------------------------------------------------------------

pg_running() { pg_ctlcluster "${pg_cluster[@]}" status >/dev/null 2>&1; }

start_postgresql() {
  if pg_running; then
    say "PostgreSQL ${pg_cluster[*]} already running"
    return 0
  fi
  # 9>&-: the postmaster must not inherit the lock's descriptor (it would hold the lock).
  pg_ctlcluster "${pg_cluster[@]}" start 9>&- ||
    die "PostgreSQL ${pg_cluster[*]} did not start (pg_ctlcluster ${pg_cluster[*]} start); see /var/log/postgresql/postgresql-${pg_cluster[0]}-${pg_cluster[1]}.log"
  touch "$dir/postgresql.started"
  say "started PostgreSQL ${pg_cluster[*]}"
}

stop_postgresql() {
  if [ ! -f "$dir/postgresql.started" ]; then
    say "PostgreSQL ${pg_cluster[*]} left as it was (up did not start it)"
    return 0
  fi
  if pg_running; then
    pg_ctlcluster "${pg_cluster[@]}" stop || die "PostgreSQL ${pg_cluster[*]} did not stop"
    say "stopped PostgreSQL ${pg_cluster[*]}"
  else
    say "PostgreSQL ${pg_cluster[*]} was not running"
  fi
  rm -f "$dir/postgresql.started"
}

# --- LAVA's database: user, token, worker, device type, devices --------------------------------

manage() {  # lava-server manage ARGS..., its output shown only when it fails
  local out
  out=$(lava-server manage "$@" 2>&1) || {
    echo "$out" >&2
    die "lava-server manage $1 $2 failed (above: why)"
  }
  printf '%s\n' "$out"
}

# What the database has, in one Django start (each lava-server manage costs ~2 s):
#   user yes|no; token yes|no (DIR/token's secret, for the admin); worker yes HEALTH TOKEN | no;
#   device-type yes|no; device NAME WORKER HEALTH for every device of the type.
db_state() {
  local out
  out=$(ADMIN="$admin_user" WORKER="$worker_name" DTYPE="$device_type" TOKEN_FILE="$dir/token" \
    lava-server manage shell -c '
import os
from django.contrib.auth.models import User
from linaro_django_xmlrpc.models import AuthToken
from lava_scheduler_app.models import Device, DeviceType, Worker
admin, worker, dtype = os.environ["ADMIN"], os.environ["WORKER"], os.environ["DTYPE"]
print("user", "yes" if User.objects.filter(username=admin).exists() else "no")
try:
    secret = open(os.environ["TOKEN_FILE"]).read().strip()
except OSError:
    secret = ""
ok = bool(secret) and AuthToken.objects.filter(user__username=admin, secret=secret).exists()
print("token", "yes" if ok else "no")
w = Worker.objects.filter(hostname=worker).first()
print("worker", "yes " + w.get_health_display() + " " + w.token if w else "no")
print("device-type", "yes" if DeviceType.objects.filter(name=dtype).exists() else "no")
for d in Device.objects.filter(device_type__name=dtype).order_by("hostname"):
    print("device", d.hostname, d.worker_host.hostname if d.worker_host else "-",
          d.get_health_display())
' 2>"$dir/manage.err") || {
    cat "$dir/manage.err" >&2
    die "reading LAVA's database failed (lava-server manage shell; above: why)"
  }
  printf '%s\n' "$out"
}

device_names() {  # N
  local i
  for i in $(seq 1 "$1"); do printf 'qemu%02d\n' "$i"; done
}

ensure_db_objects() {
  local state line worker_token="" worker_health=""
  state=$(db_state)
  local -A dev_worker=() dev_health=()
  while read -r -a line; do
    case "${line[0]:-}" in
      device) dev_worker[${line[1]}]=${line[2]}; dev_health[${line[1]}]=${line[3]} ;;
      worker) [ "${line[1]}" = no ] || { worker_health=${line[2]}; worker_token=${line[3]}; } ;;
      user | token | device-type) ;;
      *) echo "$state" >&2; die "unexpected output from lava-server manage shell (above)" ;;
    esac
  done <<< "$state"
  state_of() { awk -v k="$1" '$1 == k { print $2 }' <<< "$state"; }

  if [ "$(state_of user)" = yes ]; then
    say "user $admin_user already exists"
  else
    manage users add --superuser --staff "$admin_user" >/dev/null
    say "created user $admin_user (superuser; random password)"
  fi
  if [ "$(state_of token)" = yes ]; then
    say "API token of $admin_user already in $dir/token"
  else
    # LAVA draws the secret and prints it (no secret on a command line).
    local secret
    secret=$(manage tokens add --user "$admin_user" --description "scripts/lava.sh $dir")
    [[ "$secret" =~ ^[a-z0-9]+$ ]] || die "lava-server manage tokens add printed no token"
    (umask 077 && echo "$secret" > "$dir/token")
    say "created an API token for $admin_user in $dir/token (mode 0600)"
  fi
  if [ -n "$worker_token" ]; then
    if [ "$worker_health" = Active ]; then
      say "worker $worker_name already exists (health Active)"
    else
      manage workers update --health ACTIVE "$worker_name" >/dev/null
      say "worker $worker_name already exists; health $worker_health set to Active"
    fi
  else
    worker_token=$(manage workers add --description "ktune loopback lab" "$worker_name" |
      sed -n 's/^Token: //p')
    [ -n "$worker_token" ] || die "lava-server manage workers add printed no token"
    say "created worker $worker_name"
  fi
  (umask 077 && echo "$worker_token" > "$dir/worker-token")
  if [ "$(state_of device-type)" = yes ]; then
    say "device type $device_type already exists"
  else
    manage device-types add "$device_type" >/dev/null
    say "created device type $device_type"
  fi

  local name wanted=()
  mapfile -t wanted < <(device_names "$devices")
  for name in "${wanted[@]}"; do
    write_device_dict "$name"
    if [ -z "${dev_worker[$name]:-}" ]; then
      manage devices add --device-type "$device_type" --worker "$worker_name" "$name" >/dev/null
      say "created device $name on $worker_name"
      continue
    fi
    if [ "${dev_worker[$name]}" != "$worker_name" ]; then
      manage devices update --worker "$worker_name" "$name" >/dev/null
      say "moved device $name from worker ${dev_worker[$name]} to $worker_name"
    fi
    if [ "${dev_health[$name]}" = Good ]; then
      say "device $name already exists (health Good)"
    else
      manage devices update --health GOOD "$name" >/dev/null
      say "device $name already exists; health ${dev_health[$name]} set to Good"
    fi
  done
  # Devices of the type past N would take the type's jobs too.
  for name in "${!dev_health[@]}"; do
    printf '%s\n' "${wanted[@]}" | grep -qx "$name" && continue
    [ "${dev_health[$name]}" = Retired ] && continue
    manage devices update --health RETIRED "$name" >/dev/null
    say "retired device $name (not among the $devices asked for)"
  done
  printf '%s\n' "${wanted[@]}" > "$dir/devices"
}

# The device dictionary: qemu.jinja2 would add "-cpu host -enable-kvm" (qemu refuses KVM for
# riscv64 on this machine: "invalid accelerator kvm"); the job's context picks arch, cpu, machine.
write_device_dict() {
  local name=$1 file="$device_dicts/$1.jinja2" want
  want=$(printf "{%% extends '%s.jinja2' %%}\n{%% set no_kvm = True %%}\n{%% set memory = %s %%}" \
    "$device_type" "$memory")
  if [ -f "$file" ] && [ "$(cat "$file")" = "$want" ]; then
    say "device dictionary $file already there"
    return 0
  fi
  printf '%s\n' "$want" > "$file.tmp"
  chown lavaserver:lavaserver "$file.tmp"
  mv "$file.tmp" "$file"
  say "wrote device dictionary $file (no_kvm, memory $memory MB)"
}

# --- the daemons --------------------------------------------------------------------------------

# keep_port FILE NAME PATTERN: the port in DIR/FILE while its daemon NAME runs or the port is
# free, else a free one (said); kept in DIR/FILE.
keep_port() {
  local file="$dir/$1" p=""
  [ -f "$file" ] && p=$(cat "$file")
  if [ -n "$p" ] && ! alive "$2" "$3" && ! port_free "$p"; then
    local new
    new=$(free_port)
    say "port $p ($1) of the last up is taken by another program; using $new"
    p=$new
  fi
  [ -n "$p" ] || p=$(free_port)
  echo "$p" > "$file"
  echo "$p"
}

choose_ports() {
  if [ -n "$port" ]; then
    [ ! -f "$dir/port" ] || [ "$(cat "$dir/port")" = "$port" ] || ! alive gunicorn lava_server.wsgi ||
      die "the lab in $dir serves on port $(cat "$dir/port"), not $port: scripts/lava.sh down $dir first"
    alive gunicorn lava_server.wsgi || port_free "$port" ||
      die "port 127.0.0.1:$port is in use by another program; pick another with --port"
    echo "$port" > "$dir/port"
  else
    port=$(keep_port port gunicorn lava_server.wsgi)
  fi
  ws_port=$(keep_port publisher-port lava-publisher lava-publisher)
  events_port=$(keep_port events-port lava-publisher lava-publisher)
  # Two ports the kernel handed out one after the other may be one.
  while [ "$ws_port" = "$port" ]; do rm "$dir/publisher-port"; ws_port=$(keep_port publisher-port lava-publisher lava-publisher); done
  while [ "$events_port" = "$port" ] || [ "$events_port" = "$ws_port" ]; do
    rm "$dir/events-port"
    events_port=$(keep_port events-port lava-publisher lava-publisher)
  done
  url="http://127.0.0.1:$port/"
  echo "$url" > "$dir/url"
  # LAVA's events, which wake the scheduler when a job is submitted or a device freed, and the
  # worker when a job is scheduled or cancelled (else each polls every 20 s): Django's signals
  # in gunicorn and the scheduler push them to the publisher (ipc), which publishes them on
  # loopback (zmq for the scheduler, a websocket for the worker). Settings by environment
  # (lava_server/settings/prod.py), so /etc/lava-server stays as the package left it.
  # The ipc socket is not in DIR: the publisher binds it as lavaserver, who may not reach DIR
  # (a mkdtemp directory), and an ipc path has at most ~100 characters.
  mkdir -p "$run_dir"
  chown lavaserver:lavaserver "$run_dir"
  lava_env=(env LAVA_YAML_SETTINGS_EVENT_NOTIFICATION=true
    "LAVA_SETTINGS_EVENT_SOCKET=tcp://127.0.0.1:$events_port"
    "LAVA_SETTINGS_INTERNAL_EVENT_SOCKET=ipc://$run_dir/events-$events_port")
}

# The publisher and gunicorn are launched before LAVA's database objects are checked, and waited
# for after (gunicorn takes seconds to import Django on a busy machine).
launch_publisher() {
  publisher_log_from=0
  if alive lava-publisher lava-publisher; then
    say "lava-publisher already running (pid $(pid_of lava-publisher)) on 127.0.0.1:$ws_port, $events_port"
    return 0
  fi
  local p
  for p in "$ws_port" "$events_port"; do
    port_free "$p" || die "port 127.0.0.1:$p (lava-publisher) is in use by another program"
  done
  publisher_log_from=$(($(stat -c %s "$dir/lava-publisher.log" 2>/dev/null || echo 0) + 1))
  launch lava-publisher "${lava_env[@]}" lava-server manage lava-publisher --level INFO \
    --log-file "$dir/lava-publisher.log" --host 127.0.0.1 --port "$ws_port"
  say "started lava-publisher (pid $(pid_of lava-publisher)) on 127.0.0.1:$ws_port (websocket), $events_port (events)"
}

wait_publisher() {
  [ "$publisher_log_from" -gt 0 ] || return 0
  local waited=0
  until tail -c "+$publisher_log_from" "$dir/lava-publisher.log" | grep -q 'Listening on'; do
    alive lava-publisher lava-publisher ||
      die "lava-publisher exited while starting; see $dir/lava-publisher.log"
    [ $waited -lt $((api_wait * 2)) ] ||
      die "lava-publisher did not listen on 127.0.0.1:$ws_port within $api_wait s; see $dir/lava-publisher.log"
    sleep 0.5
    waited=$((waited + 1))
  done
  say "lava-publisher listens"
}

launch_gunicorn() {
  if alive gunicorn lava_server.wsgi; then
    say "gunicorn already running (pid $(pid_of gunicorn)) on 127.0.0.1:$port"
    return 0
  fi
  port_free "$port" ||
    die "port 127.0.0.1:$port is in use by another program; pick another with --port"
  # The unit's command (lava-server-gunicorn.service), bound to loopback; 2 workers for 2 cores.
  launch gunicorn "${lava_env[@]}" gunicorn3 lava_server.wsgi -u lavaserver -g lavaserver \
    --worker-class eventlet --workers 2 --bind "127.0.0.1:$port" \
    --log-level info --log-file "$dir/gunicorn.log"
  say "started gunicorn (pid $(pid_of gunicorn)) on 127.0.0.1:$port"
}

wait_api() {
  local version waited=0
  until version=$(api_field system/version/ version); do
    alive gunicorn lava_server.wsgi ||
      die "gunicorn exited while starting; see $dir/gunicorn.log"
    [ $waited -lt $((api_wait * 2)) ] ||
      die "gunicorn did not answer on 127.0.0.1:$port within $api_wait s; see $dir/gunicorn.log"
    sleep 0.5
    waited=$((waited + 1))
  done
  say "API answers at ${url}api/v0.2/ (LAVA $version)"
}

check_token() {
  local user
  user=$(api_field system/whoami/ user) ||
    die "GET ${url}api/v0.2/system/whoami/ failed; see $dir/gunicorn.log"
  [ "$user" = "$admin_user" ] ||
    die "the API took $dir/token as user '$user', not $admin_user"
  say "API token in $dir/token is accepted (user $user)"
}

start_scheduler() {
  if alive lava-scheduler lava-scheduler; then
    say "lava-scheduler already running (pid $(pid_of lava-scheduler))"
    return 0
  fi
  launch lava-scheduler "${lava_env[@]}" lava-server manage lava-scheduler --level INFO \
    --log-file "$dir/lava-scheduler.log" --event-url "tcp://127.0.0.1:$events_port"
  say "started lava-scheduler (pid $(pid_of lava-scheduler))"
}

start_worker() {
  if alive lava-worker lava-worker; then
    say "lava-worker already running (pid $(pid_of lava-worker)) as $worker_name"
  else
    # Two workers of one name would take each other's jobs.
    local other
    other=$(pgrep -f "lava-worker .*--name $worker_name( |\$)" | head -1 || true)
    [ -z "$other" ] ||
      die "a lava-worker named $worker_name already runs (pid $other) from another lab: scripts/lava.sh down ITS_DIR"
    # --ping-interval: the worker reports a job's end at its next ping (default 20 s);
    # --job-log-interval: a job's lava-run posts its log, the board's console with it, this often
    # (default 5 s), and a test waiting for "listening on" in the log waits as much longer.
    launch lava-worker lava-worker --level INFO --url "$url" --name "$worker_name" \
      --ws-url "http://127.0.0.1:$ws_port/ws/" --ping-interval "$ping_interval" \
      --job-log-interval 1 \
      --token-file "$dir/worker-token" --log-file "$dir/lava-worker.log"
    say "started lava-worker (pid $(pid_of lava-worker)) as $worker_name"
  fi
  local state waited=0
  until state=$(api_field "workers/$worker_name/" state) && [ "$state" = Online ]; do
    alive lava-worker lava-worker || die "lava-worker exited while starting; see $dir/lava-worker.log"
    [ $waited -lt $((worker_wait * 2)) ] ||
      die "worker $worker_name was not Online within $worker_wait s (state ${state:-unknown}); see $dir/lava-worker.log"
    sleep 0.5
    waited=$((waited + 1))
  done
  say "worker $worker_name is Online"
}

check_scheduler() {
  alive lava-scheduler lava-scheduler ||
    die "lava-scheduler exited; see $dir/lava-scheduler.log"
}

report_devices() {
  local name body
  while read -r name; do
    body=$(api_get "devices/$name/") || body=""
    say "device $name: $(json_field state "$body" || echo unknown), $(json_field health "$body" || echo unknown)"
  done < "$dir/devices"
}

write_env() {
  {
    echo "LAVA_URL=$url"
    echo "LAVA_TOKEN_FILE=$dir/token"
    echo "LAVA_DEVICES=\"$(tr '\n' ' ' < "$dir/devices" | sed 's/ $//')\""
    echo "LAVA_WORKER=$worker_name"
  } > "$dir/lava.env"
  echo "$worker_name" > "$dir/worker"
  say "wrote $dir/url, token, devices, lava.env ($url, devices $(tr '\n' ' ' < "$dir/devices" | sed 's/ $//'))"
}

# --- actions ------------------------------------------------------------------------------------

up() {
  check_one_lab
  choose_ports
  start_postgresql
  launch_publisher
  launch_gunicorn
  ensure_db_objects
  wait_publisher
  wait_api
  check_token
  start_scheduler
  start_worker
  check_scheduler
  report_devices
  write_env
  say "up: $url"
}

# unfinished_jobs: the ids of the jobs for the device type not yet Finished (up to 100).
unfinished_jobs() {
  local body
  body=$(api_get "jobs/?requested_device_type__name=$device_type&state__in=Submitted,Scheduling,Scheduled,Running,Canceling&limit=100") ||
    return 1
  grep -o '{"id":[0-9]*' <<< "$body" | cut -d: -f2 || true
}

# cancel_jobs: a job still running when its worker is killed ends Incomplete, with lava-run's
# broken-pipe traceback as its failure, and leaves its device's health Unknown; one still queued
# would take a device at the next up. So down cancels them first (GET jobs/N/cancel/) and waits
# for them to end.
cancel_jobs() {
  alive gunicorn lava_server.wsgi && alive lava-worker lava-worker || return 0
  url=$(cat "$dir/url")
  local jobs=() j waited=0
  mapfile -t jobs < <(unfinished_jobs) || true
  [ ${#jobs[@]} -gt 0 ] || return 0
  for j in "${jobs[@]}"; do
    api_get "jobs/$j/cancel/" >/dev/null || say "cancelling job $j failed"
  done
  say "cancelled job(s) ${jobs[*]}"
  while [ -n "$(unfinished_jobs)" ]; do
    if [ $waited -ge $((stop_wait * 2)) ]; then
      say "job(s) $(unfinished_jobs | tr '\n' ' ')not ended $stop_wait s after their cancel; stopping anyway"
      return 0
    fi
    sleep 0.5
    waited=$((waited + 1))
  done
  say "the cancelled jobs ended"
}

# The four at once (each takes seconds to end on a busy machine: gunicorn's and the publisher's
# graceful shutdowns), then the database they used.
down() {
  local p pids=() rc=0
  cancel_jobs
  for p in lava-worker:lava-worker lava-scheduler:lava-scheduler gunicorn:lava_server.wsgi \
    lava-publisher:lava-publisher; do
    stop_process "${p%%:*}" "${p#*:}" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  [ $rc = 0 ] || die "stopping the lab failed (above: why)"
  [ ! -f "$dir/events-port" ] || rm -f "$run_dir/events-$(cat "$dir/events-port")"
  stop_postgresql
  [ "$(cat "$lab_file" 2>/dev/null)" != "$dir" ] || rm -f "$lab_file"
}

status() {
  local bad=0 p name pattern
  for p in lava-publisher:lava-publisher gunicorn:lava_server.wsgi lava-scheduler:lava-scheduler \
    lava-worker:lava-worker; do
    name=${p%%:*} pattern=${p#*:}
    if alive "$name" "$pattern"; then
      say "$name running (pid $(pid_of "$name"))"
    else
      say "$name not running"
      bad=1
    fi
  done
  if pg_running; then say "PostgreSQL ${pg_cluster[*]} running"; else say "PostgreSQL ${pg_cluster[*]} not running"; bad=1; fi
  if [ ! -f "$dir/url" ]; then
    say "no $dir/url: scripts/lava.sh up $dir never ran"
    return 1
  fi
  url=$(cat "$dir/url")
  local version state
  if version=$(api_field system/version/ version); then
    say "API answers at ${url}api/v0.2/ (LAVA $version)"
    state=$(api_field "workers/$worker_name/" state) || state=unknown
    say "worker $worker_name: $state"
    [ "$state" = Online ] || bad=1
    [ ! -f "$dir/devices" ] || report_devices
  else
    say "API does not answer at ${url}api/v0.2/"
    bad=1
  fi
  return $bad
}

action=${1:-}
dir=${2:-}
if [ -z "$action" ] || [ -z "$dir" ]; then usage; fi
shift 2
devices=1 port="" memory=1024 url="" ws_port="" events_port="" lava_env=() publisher_log_from=0
while [ $# -gt 0 ]; do
  [ "$action" = up ] || die "$action takes no options (got $1)"
  case "$1" in
    --devices) devices=${2:-}; shift 2 || usage ;;
    --port) port=${2:-}; shift 2 || usage ;;
    --memory) memory=${2:-}; shift 2 || usage ;;
    *) die "unknown option $1" ;;
  esac
done
for n in "$devices" "$memory" ${port:+"$port"}; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "not a positive number: $n"
done
[ "$devices" -le 99 ] || die "at most 99 devices (qemu01..qemu99)"

need_root
need_tools
case "$action" in
  up)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    # LAVA's daemons reopen their logs by name (WatchedFileHandler) after dropping to lavaserver.
    runuser -u lavaserver -- test -x "$dir" ||
      die "user lavaserver cannot reach $dir (LAVA's daemons write their logs there as lavaserver): chmod o+x it and its parents, or pick another DIR"
    take_lock
    up
    ;;
  down)
    [ -d "$dir" ] || die "no $dir"
    dir=$(cd "$dir" && pwd)
    take_lock
    down
    ;;
  status)
    [ -d "$dir" ] || die "no $dir"
    dir=$(cd "$dir" && pwd)
    status
    ;;
  *) usage ;;
esac
