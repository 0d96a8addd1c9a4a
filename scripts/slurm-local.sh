#!/usr/bin/env bash
# A single-node Slurm on this machine, for the executor's end-to-end tests (tests/cli/slurm.rs) and for trying
# `--executor slurm` without a cluster. Debian's slurm-wlm and munge; a generated slurm.conf for localhost with
# a few CPU slots; no cgroups, no accounting database. Everything lives under one state folder.
#
#   scripts/slurm-local.sh start [DIR]   start munged, slurmctld and slurmd; prints `export SLURM_CONF=...`
#   scripts/slurm-local.sh stop  [DIR]   stop them
#   scripts/slurm-local.sh status [DIR]  sinfo
#
# DIR defaults to $ASCEND_TUNE_SLURM_DIR or /tmp/ascend-tune-slurm. Needs root (the daemons run as root here)
# and the packages: apt-get install slurm-wlm munge.
set -euo pipefail

cmd=${1:-}
dir=${2:-${ASCEND_TUNE_SLURM_DIR:-/tmp/ascend-tune-slurm}}
conf="$dir/slurm.conf"

die() { echo "slurm-local: $*" >&2; exit 1; }

start() {
    for b in munged slurmctld slurmd sbatch sinfo; do
        command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] \
            || die "$b not found; install it with: apt-get install slurm-wlm munge"
    done
    [ "$(id -u)" = 0 ] || die "needs root (the daemons run as root in this single-node setup)"
    mkdir -p "$dir"/{spool,state,log,munge}
    chmod 700 "$dir/munge"
    local host cpus mem
    host=$(hostname -s)
    cpus=${ASCEND_TUNE_SLURM_CPUS:-4}
    mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))

    # munge: a key of our own and a daemon on a socket in DIR.
    if [ ! -f "$dir/munge/munge.key" ]; then
        dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
        chmod 400 "$dir/munge/munge.key"
    fi
    if ! pgrep -f "munged.*$dir/munge" >/dev/null; then
        /usr/sbin/munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
            --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"
    fi

    # CPUs are oversubscribed on purpose (a slot is a job, not a core): tests run several short jobs at once.
    cat > "$conf" <<CONF
ClusterName=ascendtune
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SlurmctldPort=${ASCEND_TUNE_SLURM_PORT:-6917}
SlurmdPort=$(( ${ASCEND_TUNE_SLURM_PORT:-6917} + 1 ))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
# Configured CPUs may exceed the real ones (a slot is a job here).
SlurmdParameters=config_overrides
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
KillWait=5
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
    export SLURM_CONF="$conf"
    pgrep -f "slurmctld.*-f $conf" >/dev/null || /usr/sbin/slurmctld -f "$conf"
    pgrep -f "slurmd.*-f $conf" >/dev/null || /usr/sbin/slurmd -f "$conf"
    # Wait for the node to come up (at most 30 s).
    for _ in $(seq 1 60); do
        if sinfo -h -o '%t' 2>/dev/null | grep -Eq '^(idle|mix|alloc)'; then
            echo "export SLURM_CONF=$conf"
            return 0
        fi
        sleep 0.5
    done
    tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
    die "the node did not come up in 30 s (logs above, in $dir/log)"
}

stop() {
    for p in slurmd slurmctld; do
        [ -f "$dir/$p.pid" ] && kill "$(cat "$dir/$p.pid")" 2>/dev/null || true
    done
    [ -f "$dir/munge/munged.pid" ] && kill "$(cat "$dir/munge/munged.pid")" 2>/dev/null || true
    # The spool and state go too, so the next start has no jobs left over.
    sleep 1
    rm -rf "$dir/spool" "$dir/state"
}

case "$cmd" in
    start) start ;;
    stop) stop ;;
    status) SLURM_CONF="$conf" sinfo ;;
    *) die "usage: $0 start|stop|status [DIR]" ;;
esac
