#!/usr/bin/env bash
# A throwaway Slurm cluster on this machine, to try the job scripts without a cluster and to test
# them (tests/jobs): MUNGE, slurmctld and slurmd from Debian's packages (munge, slurm-wlm), with
# their own key, config, state, spool, logs and free loopback ports under DIR. Nothing in /etc,
# /var or /run is used and no system service is started. Clients find it with `. DIR/env`.
#
#   local-cluster.sh start DIR [WATCH_PID]   start the daemons, wait until every node is idle, write
#                                         DIR/env (SLURM_CONF=...) for clients; exits non-zero
#                                         with the failing daemon's own log lines otherwise. With
#                                         WATCH_PID, a watchdog stops the cluster when that
#                                         process ends (ctest, if the cleanup step never runs).
#   local-cluster.sh stop DIR                cancel every job, stop every daemon it started
#
# NODES (default 2) slurmd daemons, each a node pentago-N claiming CPUS (default 1) CPUs: several
# slurmd run on one host (Debian's Slurm 22.05 does, each with its own Port, spool and pid file;
# all nodes share this host's name and 127.0.0.1). Run as root (Slurm's slurmd starts job steps
# as the submitting user); the daemons run as the calling user.
set -uo pipefail

usage() { echo "usage: local-cluster.sh start|stop DIR [WATCH_PID]" >&2; exit 2; }
[ $# -ge 2 ] || usage
action=$1 dir=$2 watch=${3:-}

die() { echo "local-cluster: $*" >&2; exit 1; }

# Prints the last lines of each daemon log (the daemons' own errors).
show_logs() {
  local log
  for log in "$dir"/munged.log "$dir"/slurmctld.log "$dir"/slurmd-*.log; do
    [ -f "$log" ] && { echo "---- $log (last lines)" >&2; tail -n 20 "$log" >&2; }
  done
}

stop_cluster() {
  [ -d "$dir" ] || return 0
  if [ -f "$dir/env" ]; then
    # shellcheck disable=SC1091
    . "$dir/env"
    scancel --quiet --full --signal=KILL --user="$(id -un)" 2>/dev/null
  fi
  local pidfile pid
  for pidfile in "$dir"/slurmd-*.pid "$dir"/slurmctld.pid "$dir"/munged.pid "$dir"/watchdog.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
  done
  # Daemons get a few seconds to leave, then are killed; job steps left behind go with them.
  for _ in $(seq 50); do
    local alive=0
    for pidfile in "$dir"/slurmd-*.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
      [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && alive=1
    done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for pidfile in "$dir"/slurmd-*.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$pidfile" ] && kill -KILL "$(cat "$pidfile")" 2>/dev/null
    rm -f "$pidfile"
  done
  pkill -KILL -f "slurmstepd.*$dir" 2>/dev/null
  [ -f "$dir/socket-dir" ] && rm -rf "$(cat "$dir/socket-dir")" "$dir/socket-dir"
  rm -f "$dir/env" "$dir/watchdog.pid"
  return 0
}

# A free TCP port on the loopback interface.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_cluster() {
  local cmd
  for cmd in munged slurmctld slurmd sbatch sinfo scontrol squeue scancel; do
    command -v "$cmd" > /dev/null ||
      die "$cmd not found: the slurm tests need Debian's slurm-wlm and munge (apt-get install slurm-wlm munge; scripts/test installs them)"
  done
  stop_cluster
  rm -rf "$dir"
  mkdir -p "$dir/state" "$dir/spool" || die "cannot create $dir"
  chmod 700 "$dir"
  local nodes=${NODES:-2} cpus=${CPUS:-1} user memory
  user=$(id -un)
  memory=$(awk -v nodes="$nodes" '/MemTotal/ { print int($2 / 1024 * 0.9 / nodes) }' /proc/meminfo)

  dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none && chmod 400 "$dir/munge.key"
  # A Unix socket's path holds at most 107 bytes, and slurmd puts its steps' sockets in its spool
  # folder: a deep DIR gets its sockets and spool in a short folder of /tmp.
  local run=$dir
  if [ ${#dir} -gt 50 ]; then
    run=$(mktemp -d /tmp/pentago-slurm.XXXXXX) || die "cannot create a folder in /tmp"
    echo "$run" > "$dir/socket-dir"
  fi
  local socket=$run/munge.socket
  munged --force --key-file="$dir/munge.key" --socket="$socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" \
    < /dev/null > "$dir/munged.out" 2>&1 ||
    { cat "$dir/munged.out" >&2; show_logs; die "munged did not start"; }

  local ctld_port node_lines="" node_names="" k
  ctld_port=$(free_port)
  for k in $(seq "$nodes"); do
    node_lines+="NodeName=pentago-$k NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 Port=$(free_port) CPUs=$cpus RealMemory=$memory State=UNKNOWN"$'\n'
    node_names+="${node_names:+,}pentago-$k"
  done
  cat > "$dir/slurm.conf" <<CONF
ClusterName=pentagotest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$ctld_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$run/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
KillWait=30
MinJobAge=600
${node_lines}PartitionName=test Nodes=$node_names Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
  {
    echo "export SLURM_CONF=$dir/slurm.conf"
    echo "export SLURM_CLUSTER_DIR=$dir"
  } > "$dir/env"
  export SLURM_CONF=$dir/slurm.conf

  slurmctld -c -f "$SLURM_CONF" < /dev/null > "$dir/slurmctld.out" 2>&1 ||
    { cat "$dir/slurmctld.out" >&2; show_logs; stop_cluster; die "slurmctld did not start"; }
  for k in $(seq "$nodes"); do
    mkdir -p "$run/spool/pentago-$k"
    slurmd -f "$SLURM_CONF" -N "pentago-$k" < /dev/null > "$dir/slurmd-pentago-$k.out" 2>&1 ||
      { cat "$dir/slurmd-pentago-$k.out" >&2; show_logs; stop_cluster; die "slurmd pentago-$k did not start"; }
  done

  local states=""
  for _ in $(seq 120); do
    states=$(sinfo -h -N -o "%N %T" 2>/dev/null | sort -u)
    if [ -n "$states" ] && ! echo "$states" | grep -qv " idle"; then break; fi
    echo "$states" | grep -qE " (drain|down)" && scontrol update NodeName="$node_names" State=RESUME 2>/dev/null
    sleep 0.5
  done
  if [ -z "$states" ] || echo "$states" | grep -qv " idle"; then
    echo "node states: ${states:-none}" >&2
    show_logs
    stop_cluster
    die "the nodes did not become idle within 60 s"
  fi

  if [ -n "$watch" ]; then
    # The watchdog outlives this script: it stops the cluster once WATCH_PID is gone.
    nohup bash -c "while kill -0 $watch 2>/dev/null && [ -f '$dir/env' ]; do sleep 2; done
      [ -f '$dir/env' ] && '$0' stop '$dir'" > /dev/null 2>&1 &
    echo $! > "$dir/watchdog.pid"
  fi
  echo "local-cluster: $nodes node(s) idle ($node_names, $cpus CPUs each), config $SLURM_CONF"
}

case $action in
  start) start_cluster ;;
  stop) stop_cluster; echo "local-cluster: stopped ($dir)" ;;
  *) usage ;;
esac
