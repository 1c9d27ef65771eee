#!/usr/bin/env bash
# Starts and stops a private, throwaway single-node Slurm cluster (munged + slurmctld + slurmd on this host) for
# tests. Everything it creates (munge key and socket, slurm.conf, cgroup.conf, state, spool, logs, pid files)
# lives in one folder given by the caller, and the ports are picked at random among free ones, so several test
# runs can each have their own cluster at the same time without touching /etc/slurm or a system munged.
#
# Usage:
#   eval "$(bash scripts/slurm-local.sh start DIR)"   # DIR: a fresh folder, e.g. from mktemp -d
#       Starts the cluster and prints only `export SLURM_CONF=DIR/slurm.conf` on stdout; with that exported,
#       sbatch/squeue/scontrol/sinfo/scancel talk to the private cluster (slurm.conf's AuthInfo tells them
#       which munge socket to use, so no other variable is needed). `eval "$(...)"` succeeds even when start
#       fails (it evaluates nothing); to stop on failure write: env=$(bash scripts/slurm-local.sh start DIR)
#       && eval "$env".
#   bash scripts/slurm-local.sh stop DIR               # stops what `start DIR` started; idempotent
#   bash scripts/slurm-local.sh check                  # exit 0 when the needed programs are installed
#
# Failures print one line on stderr starting with "slurm-local:" and exit 3; a failed start leaves nothing
# running. Must run as root (SlurmUser=root, SlurmdUser=root; slurmd must be able to run jobs as any user).
set -euo pipefail

readonly PROG=slurm-local
# Programs `start` runs (the client commands are what tests use on the started cluster).
readonly NEEDED=(munged slurmctld slurmd scontrol sinfo sbatch squeue scancel)
# Daemons in the order `start` launches them; `stop` ends them in reverse.
readonly DAEMONS=(munged slurmctld slurmd)
readonly START_TIMEOUT=30 # seconds to wait for the cluster to come up
readonly STOP_TIMEOUT=15  # seconds to wait for a daemon to exit after SIGTERM before SIGKILL

die() { # die MESSAGE: one line on stderr, exit 3
  echo "$PROG: $*" >&2
  exit 3
}

usage() {
  echo "usage: $0 start DIR | stop DIR | check" >&2
  exit 2
}

cmd_check() {
  local missing=() p
  for p in "${NEEDED[@]}"; do
    command -v "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]} > 0)); then
    die "missing programs: ${missing[*]} (Debian: apt-get install slurm-wlm munge)"
  fi
}

# last_line FILE: the last non-empty line of FILE, or a placeholder when it does not exist or is empty.
last_line() {
  local line=""
  [[ -s "$1" ]] && line=$(grep -v '^[[:space:]]*$' "$1" | tail -n 1 || true)
  echo "${line:-no output in $1}"
}

# alive PID: true when process PID exists and is not a zombie (an exited daemon whose parent has not reaped
# it yet; in a container pid 1 may never reap it).
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) } # the state letter follows the parenthesised command name
  [[ "${stat:0:1}" != Z ]]
}

# daemon_pid DIR NAME: prints the pid of daemon NAME started in DIR if it is still running, else fails.
# Checks /proc/PID/comm so that a pid reused by an unrelated process is never taken for the daemon.
daemon_pid() {
  local pidfile="$1/run/$2.pid" pid comm
  [[ -s "$pidfile" ]] || return 1
  pid=$(head -n 1 "$pidfile")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  [[ "$comm" == "$2" ]] || return 1
  alive "$pid" || return 1
  echo "$pid"
}

# stepd_pids DIR: pids of the slurmstepd processes (one per running job step) of the cluster in DIR. slurmd
# starts them detached and they outlive it; they are recognised by holding a file inside DIR open (slurmd's log)
# or working in it (slurmd -s), since their environment is empty.
stepd_pids() {
  local dir="$1" p fd
  for p in /proc/[0-9]*; do
    [[ "$(cat "$p/comm" 2>/dev/null)" == slurmstepd ]] || continue
    if [[ "$(readlink "$p/cwd" 2>/dev/null)" == "$dir/"* ]]; then
      echo "${p#/proc/}"
      continue
    fi
    for fd in "$p"/fd/*; do
      if [[ "$(readlink "$fd" 2>/dev/null)" == "$dir/"* ]]; then
        echo "${p#/proc/}"
        break
      fi
    done
  done
}

# with_descendants PID...: the given pids and all their descendants (from ps's parent links).
with_descendants() {
  local -A children=()
  local pid ppid queue=("$@") out=()
  while read -r pid ppid; do
    children[$ppid]+=" $pid"
  done < <(ps -e -o pid=,ppid=)
  while ((${#queue[@]} > 0)); do
    pid=${queue[0]}
    queue=("${queue[@]:1}")
    out+=("$pid")
    # shellcheck disable=SC2206 # word splitting of the space-separated child list is intended
    queue+=(${children[$pid]:-})
  done
  echo "${out[@]}"
}

# stop_daemons DIR: ends everything the cluster in DIR runs. First the job steps still running (slurmstepd and
# the job processes under it, SIGKILL: tests want them gone, not checkpointed); then each daemon, slurmd first:
# SIGTERM, wait for it to exit, SIGKILL if it has not within STOP_TIMEOUT; then removes the pid files. Doing
# nothing when nothing runs is fine.
stop_daemons() {
  local dir="$1" i name pid waited stepds=() victims=()
  mapfile -t stepds < <(stepd_pids "$dir")
  if ((${#stepds[@]} > 0)); then
    read -ra victims <<<"$(with_descendants "${stepds[@]}")"
    kill -KILL "${victims[@]}" 2>/dev/null || true
  fi
  for ((i = ${#DAEMONS[@]} - 1; i >= 0; i--)); do
    name=${DAEMONS[i]}
    pid=$(daemon_pid "$dir" "$name") || { rm -f "$dir/run/$name.pid"; continue; }
    kill -TERM "$pid" 2>/dev/null || true
    waited=0
    while alive "$pid" && ((waited < STOP_TIMEOUT * 10)); do
      sleep 0.1
      waited=$((waited + 1))
    done
    if alive "$pid"; then
      kill -KILL "$pid" 2>/dev/null || true
      waited=0
      while alive "$pid" && ((waited < 50)); do
        sleep 0.1
        waited=$((waited + 1))
      done
    fi
    rm -f "$dir/run/$name.pid"
  done
}

cmd_stop() {
  local dir="$1"
  [[ -d "$dir" ]] || return 0 # nothing was ever started there
  dir=$(cd "$dir" && pwd -P)
  stop_daemons "$dir"
}

# used_ports: every local TCP port in use (any state), one per line, from /proc/net/tcp and tcp6.
used_ports() {
  local f hex
  for f in /proc/net/tcp /proc/net/tcp6; do
    [[ -r "$f" ]] || continue
    # Column 2 is local_address "HEXIP:HEXPORT".
    while read -r hex; do
      echo $((16#$hex))
    done < <(awk 'NR > 1 { n = split($2, a, ":"); print a[n] }' "$f")
  done
}

# pick_ports N: N distinct random TCP ports that nobody uses now. Drawn from 20000-32767, below Linux's
# ephemeral range (32768-60999) so outgoing connections do not grab them; random so that two test runs
# starting at the same moment are very unlikely to choose the same ones.
pick_ports() {
  local n="$1" used chosen=() port tries=0
  used=" $(used_ports | tr '\n' ' ') "
  while ((${#chosen[@]} < n)); do
    ((tries++ < 1000)) || die "could not find $n free TCP ports"
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 12768))
    [[ "$used" == *" $port "* ]] && continue
    used+="$port "
    chosen+=("$port")
  done
  echo "${chosen[@]}"
}

# write_config DIR NODE CTLD_PORT SLURMD_PORT: slurm.conf and cgroup.conf for a one-node cluster in DIR.
write_config() {
  local dir="$1" node="$2" ctld_port="$3" slurmd_port="$4" cpus mem_mb real_mem
  cpus=$(nproc)
  mem_mb=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / 1024))
  # Declare less memory than the machine has (5% + 256 MB less): the controller rejects (INVAL) a node whose
  # configured RealMemory is above what slurmd measures, and that measure can be a little below MemTotal.
  real_mem=$((mem_mb - mem_mb / 20 - 256))
  ((real_mem >= 1)) || real_mem=1

  cat >"$dir/slurm.conf" <<EOF
# Private single-node test cluster written by scripts/slurm-local.sh; thrown away with this folder.
ClusterName=odcn-test
# The controller is this host, reached over loopback so nothing depends on how the hostname resolves.
SlurmctldHost=$node(127.0.0.1)
# Ports picked free at start, so concurrent private clusters do not clash (and none clashes with a real one).
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
# Authentication through our own munged: AuthInfo gives its socket to the daemons and to every client command.
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
# Both daemons run as root (the script is run as root; slurmd must be able to start jobs as any user).
SlurmUser=root
SlurmdUser=root
# All state, spool, log and pid files live inside the folder.
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# (The script keeps its own pid files, run/NAME.pid, written at launch; these are the daemons' own copies.)
SlurmctldPidFile=$dir/run/slurmctld.self.pid
SlurmdPidFile=$dir/run/slurmd.self.pid
SlurmctldDebug=info
SlurmdDebug=info
# Track job processes through /proc (no cgroups needed, works in containers) and bind no tasks to CPUs.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
# No accounting: no job metrics gathering, no slurmdbd, no job completion log.
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
# Allocate individual cores (several small jobs share the node) with the current resource selector.
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# No MPI plugin for srun steps.
MpiDefault=none
# A node that was DOWN comes back by itself as soon as its slurmd registers with a valid configuration.
ReturnToService=2
# Start batch jobs as soon as resources free up instead of batching their scheduling (default delay: 3 s),
# which halves the time a small job array takes on a small node.
SchedulerParameters=batch_sched_delay=0
# Never send mail (there may be no /bin/mail).
MailProg=/bin/true
# The one node: this host with all the CPUs this process may use and a little less memory than it has.
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$real_mem State=UNKNOWN
# The one partition, the default one, without time limit.
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

  cat >"$dir/cgroup.conf" <<EOF
# Read by slurmd next to slurm.conf. Nothing here uses cgroups (proctrack/linuxproc, task/none); this only keeps
# slurmd from mounting cgroup file systems or constraining anything should a cgroup plugin be loaded.
CgroupAutomount=no
ConstrainCores=no
ConstrainRAMSpace=no
ConstrainSwapSpace=no
ConstrainDevices=no
EOF
}

# launch DIR NAME LOG COMMAND...: starts daemon NAME in the foreground of its own session (setsid; it does not
# fork since a background child of this non-interactive shell is no process group leader), detached from the
# caller's terminal and from the `$(...)` that reads our stdout, and records its pid in DIR/run/NAME.pid.
# Returns once the process has become NAME (exec done) or has already exited.
launch() {
  local dir="$1" name="$2" log="$3" pid tries=0
  shift 3
  SLURM_CONF="$dir/slurm.conf" setsid "$@" </dev/null >>"$log" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/run/$name.pid"
  while alive "$pid" && [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$name" ]] && ((tries++ < 500)); do
    sleep 0.01
  done
}

# fail_start DIR WHAT LOG: stops whatever was started, reports WHAT with LOG's last line, exits 3.
fail_start() {
  local dir="$1" what="$2" log="$3"
  local msg
  msg=$(last_line "$log")
  stop_daemons "$dir"
  die "$what: $msg"
}

cmd_start() {
  local dir="$1" node ctld_port slurmd_port name deadline
  cmd_check
  [[ $EUID -eq 0 ]] || die "must run as root (the private cluster runs slurmctld/slurmd as SlurmUser=root)"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd -P)
  for name in "${DAEMONS[@]}"; do
    if daemon_pid "$dir" "$name" >/dev/null; then
      die "$name from an earlier start is still running in $dir (run: $0 stop $dir)"
    fi
  done
  # Interrupted half-way: stop what was started, so that nothing is left running.
  trap 'stop_daemons "$dir"; die "interrupted; stopped what had been started"' INT TERM HUP
  # A unix socket path must fit in sockaddr_un.sun_path (108 bytes including the NUL).
  ((${#dir} + 20 < 108)) || die "folder path too long for a unix socket: $dir"
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
  # munged refuses a key that others could read or a socket folder that others could write; 0711 lets users
  # other than root reach the socket (when DIR itself allows it).
  chmod 0711 "$dir/munge"

  # The node is this host under its short name when that resolves, else localhost; either way it is
  # reached at 127.0.0.1 (NodeAddr), and slurmd is told its name with -N.
  node=$(hostname -s 2>/dev/null || true)
  if [[ -z "$node" ]] || ! getent hosts "$node" >/dev/null 2>&1; then
    node=localhost
  fi
  read -r ctld_port slurmd_port <<<"$(pick_ports 2)"
  write_config "$dir" "$node" "$ctld_port" "$slurmd_port"

  # munged with its own key (1 KiB of random bytes, the size mungekey makes), socket, pid and seed files.
  # --foreground: so that launch records its pid; it then logs to stderr, i.e. log/munged.out.
  # --force: it would otherwise refuse some setups (e.g. a socket left behind by a killed munged).
  if [[ ! -s "$dir/munge/munge.key" ]]; then
    (umask 077 && head -c 1024 /dev/urandom >"$dir/munge/munge.key")
  fi
  launch "$dir" munged "$dir/log/munged.out" munged --foreground --force \
    --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munged.seed"
  deadline=$((SECONDS + START_TIMEOUT))
  until [[ -S "$dir/munge/munge.socket" ]]; do
    daemon_pid "$dir" munged >/dev/null || fail_start "$dir" "munged did not start" "$dir/log/munged.out"
    ((SECONDS < deadline)) || fail_start "$dir" "munged did not start within ${START_TIMEOUT}s" "$dir/log/munged.out"
    sleep 0.1
  done

  # -D: stay in the foreground (launch detaches it), so the pid we record is the daemon's.
  # -i: ignore any state left in StateSaveLocation; the cluster is always fresh.
  launch "$dir" slurmctld "$dir/log/slurmctld.out" slurmctld -D -i -f "$dir/slurm.conf"
  # The controller is ready when `scontrol ping` finds it UP.
  local ping=""
  until [[ "$ping" == *" is UP"* ]]; do
    daemon_pid "$dir" slurmctld >/dev/null || fail_start "$dir" "slurmctld did not start" "$dir/log/slurmctld.out"
    ((SECONDS < deadline)) || fail_start "$dir" "slurmctld did not start within ${START_TIMEOUT}s" "$dir/log/slurmctld.out"
    sleep 0.1
    ping=$(SLURM_CONF="$dir/slurm.conf" scontrol ping 2>&1 || true)
  done

  # -N: the node name to serve (the host may not be called that); -s: work in SlurmdLogFile's folder (DIR/log),
  # not in the caller's current folder, which then stays free to be deleted.
  launch "$dir" slurmd "$dir/log/slurmd.out" slurmd -D -s -N "$node" -f "$dir/slurm.conf"
  # The node is ready when it is idle: slurmd registered with a configuration the controller accepts.
  # A node the controller rejected (INVAL, e.g. fewer CPUs than configured) or drained will not become idle:
  # report the controller's reason at once.
  local state="" reason
  until [[ "$state" == idle ]]; do
    daemon_pid "$dir" slurmd >/dev/null || fail_start "$dir" "slurmd did not start" "$dir/log/slurmd.out"
    if [[ "$state" == inval* || "$state" == drain* ]] || ((SECONDS >= deadline)); then
      reason=$(SLURM_CONF="$dir/slurm.conf" sinfo -h -N -n "$node" -o '%E' 2>&1 || true)
      stop_daemons "$dir"
      die "node $node is '$state', not idle (reason: ${reason:-none}); see $dir/log/slurmctld.log"
    fi
    sleep 0.1
    state=$(SLURM_CONF="$dir/slurm.conf" sinfo -h -N -n "$node" -o '%T' 2>&1 || true)
  done

  trap - INT TERM HUP
  printf 'export SLURM_CONF=%q\n' "$dir/slurm.conf"
}

main() {
  (($# >= 1)) || usage
  case "$1" in
  start) (($# == 2)) || usage; cmd_start "$2" ;;
  stop) (($# == 2)) || usage; cmd_stop "$2" ;;
  check) (($# == 1)) || usage; cmd_check ;;
  *) usage ;;
  esac
}

main "$@"
