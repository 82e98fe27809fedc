#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/slurm-cluster.sh start|stop|status DIR - a one-host Slurm cluster
# living entirely in DIR, for tests/slurm-check.sh and for trying
# run-all.sh --slurm by hand:
#
#   tests/slurm-cluster.sh start /tmp/sc-slurm    # then, in your shell:
#   export SLURM_CONF=/tmp/sc-slurm/slurm.conf    # sbatch, squeue, ... use it
#   tests/slurm-cluster.sh stop /tmp/sc-slurm
#
# start: DIR must not exist or be empty. Writes a munge key (random, mode
# 0400), slurm.conf (this host as controller and as the one compute node, its
# CPUs, sockets and cores as `slurmd -C` reports them, one partition "debug",
# SelectType cons_tres with whole-core allocation, ProctrackType linuxproc,
# TaskPlugin task/none, no accounting daemon: sacct does not work, squeue
# and scontrol do; finished jobs stay visible to them for MinJobAge=3600 s),
# then starts munged, slurmctld and slurmd (all as root, with their state,
# spool, logs, pid files and munge socket under DIR; two free TCP ports on
# 127.0.0.1 picked at start) and waits until the node is idle. Nothing
# outside DIR is read or written: /etc/slurm and the system's munge are left
# alone. The daemons keep running after the script returns.
# stop: cancels every job of the cluster, stops the daemons (TERM, then
# KILL after 10 s) and any process of one of its jobs still left (a
# slurmstepd or a job's process whose environment names DIR/slurm.conf), then leaves DIR in place (logs) for the caller to
# remove. Safe to call twice or on a half-started cluster.
# status: prints "DAEMON PID" for each of the three daemons still running;
# 0 when all three run and slurmctld answers, 1 otherwise.
#
# Needs root and the Debian packages slurmctld, slurmd, slurm-client and
# munge (installed by tests/slurm-check.sh; their service scripts are not
# used). Exit status: 0, 1 on a failure (the daemon's log is shown), 2 on
# bad usage.
set -euo pipefail
me=slurm-cluster
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "$me: $*" >&2; exit 1; }

[ $# -ge 1 ] || { usage >&2; exit 2; }
case $1 in -h | --help) usage; exit 0 ;; esac
[ $# -eq 2 ] || { usage >&2; exit 2; }
cmd=$1
dir=$2
case $cmd in start | stop | status) ;; *) usage >&2; exit 2 ;; esac
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
case $dir in
/ | /etc* | /proc* | /sys* | /dev* | /usr* | /var/spool* | /run | /run/*)
	echo "$me: $dir: not a directory for a test cluster" >&2
	exit 2
	;;
esac
conf=$dir/slurm.conf
export SLURM_CONF=$conf

# A pid from a pid file, only when that process still runs the expected
# program (a pid file left by a dead daemon may name someone else by now).
pid_of() { # pid_of FILE PROGRAM
	local f=$1 prog=$2 pid exe
	[ -f "$f" ] || return 1
	pid=$(head -c 20 "$f" | tr -d ' \n')
	[[ $pid =~ ^[1-9][0-9]*$ ]] || return 1
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
	# Debian installs the daemons as slurmctld-wlm etc. behind alternatives.
	case ${exe##*/} in "$prog" | "$prog"-*) echo "$pid" ;; *) return 1 ;; esac
}

# The processes of this cluster's jobs: a slurmstepd, or a process with a
# SLURM_JOB_ID, whose environment names this cluster's slurm.conf (slurmd
# passes its own environment to slurmstepd, and a job's to its processes).
# A shell that merely exported SLURM_CONF to call sbatch is not one of them.
cluster_procs() {
	local e p env exe
	for e in /proc/[0-9]*/environ; do
		p=${e#/proc/}
		p=${p%/environ}
		env=$(tr '\0' '\n' 2>/dev/null <"$e") || continue
		grep -qxF "SLURM_CONF=$conf" <<<"$env" || continue
		exe=$(readlink "/proc/$p/exe" 2>/dev/null) || exe=""
		case ${exe##*/} in
		slurmstepd | slurmstepd-*) echo "$p" ;;
		*) if grep -q '^SLURM_JOB_ID=' <<<"$env"; then echo "$p"; fi ;;
		esac
	done
}

# Wait up to $1 seconds for a condition command to succeed.
wait_for() {
	local s=$1 i
	shift
	for ((i = 0; i < s * 4; i++)); do
		"$@" && return 0
		sleep 0.25
	done
	return 1
}

free_port() { # a TCP port nothing listens on, from a range per call
	local lo=$1 p
	for ((p = lo; p < lo + 200; p++)); do
		if ! ss -Htln "sport = :$p" 2>/dev/null | grep -q .; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

node_idle() {
	[ "$(sinfo -h -N -o '%t' 2>/dev/null | head -1)" = idle ]
}

stop_cluster() {
	local ids p daemon pids left
	if pid_of "$dir/slurmctld.pid" slurmctld >/dev/null; then
		ids=$(squeue -h -o '%A' 2>/dev/null | sort -u | paste -sd' ' -) || ids=""
		if [ -n "$ids" ]; then
			# shellcheck disable=SC2086 # a list of job ids
			scancel $ids 2>/dev/null || true
			# shellcheck disable=SC2016 # expanded by that sh
			wait_for 20 sh -c '[ -z "$(squeue -h -t R,CG -o %A 2>/dev/null)" ]' || true
		fi
	fi
	pids=""
	for daemon in slurmd slurmctld munged; do
		p=$(pid_of "$dir/$daemon.pid" "$daemon") || continue
		kill -TERM "$p" 2>/dev/null || true
		pids="$pids $p"
	done
	for p in $pids; do
		wait_for 10 sh -c "! kill -0 $p 2>/dev/null" || kill -KILL "$p" 2>/dev/null || true
	done
	# A job step's processes (slurmstepd outlives slurmd on purpose).
	left=$(cluster_procs | paste -sd' ' -)
	if [ -n "$left" ]; then
		# shellcheck disable=SC2086 # a list of pids
		kill -TERM $left 2>/dev/null || true
		sleep 1
		left=$(cluster_procs | paste -sd' ' -)
		# shellcheck disable=SC2086
		[ -z "$left" ] || kill -KILL $left 2>/dev/null || true
	fi
}

show_log() {
	echo "$me: last lines of $1:" >&2
	tail -15 "$1" >&2 2>/dev/null || true
}

# write_conf HOST CPUS SOCKETS CORES THREADS CTLD_PORT SLURMD_PORT: $conf, the
# cluster of one node of that shape, its daemons' files under $dir.
write_conf() {
	local host=$1 cpus=$2 sockets=$3 cores=$4 threads=$5 ctld_port=$6 slurmd_port=$7
	cat >"$conf" <<EOF
# SPDX-License-Identifier: MIT
# A one-host test cluster written by tests/slurm-cluster.sh.
ClusterName=sctest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=3600
MaxArraySize=1001
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
MailProg=/bin/true
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus Sockets=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

start_cluster() {
	local host cpus sockets cores threads ctld_port slurmd_port c
	if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
		echo "$me: $dir exists and is not empty" >&2
		exit 2
	fi
	[ "$(id -u)" -eq 0 ] || die "needs root (munged, slurmd)"
	for c in munged slurmctld slurmd sinfo sbatch squeue scontrol scancel ss; do
		command -v "$c" >/dev/null 2>&1 || die "$c not found (Debian: slurmctld slurmd slurm-client munge iproute2)"
	done
	mkdir -p "$dir"
	chmod 0700 "$dir"
	mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
	chmod 0700 "$dir/munge"
	host=$(hostname -s)
	# The node as slurmd sees it (a node configured larger than it is
	# would be drained as invalid).
	c=$(slurmd -C | head -1)
	cpus=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$c")
	sockets=$(sed -n 's/.* SocketsPerBoard=\([0-9]*\).*/\1/p' <<<"$c")
	cores=$(sed -n 's/.* CoresPerSocket=\([0-9]*\).*/\1/p' <<<"$c")
	threads=$(sed -n 's/.* ThreadsPerCore=\([0-9]*\).*/\1/p' <<<"$c")
	[ -n "$cpus" ] && [ -n "$sockets" ] && [ -n "$cores" ] && [ -n "$threads" ] ||
		die "cannot read the node's shape from slurmd -C: $c"
	ctld_port=$(free_port 26817) || die "no free port for slurmctld"
	slurmd_port=$(free_port $((ctld_port + 1))) || die "no free port for slurmd"

	# munge: a fresh key readable by its owner only (munged refuses others).
	head -c 1024 /dev/urandom >"$dir/munge/munge.key"
	chmod 0400 "$dir/munge/munge.key"
	write_conf "$host" "$cpus" "$sockets" "$cores" "$threads" "$ctld_port" "$slurmd_port"
	: >"$dir/plugstack.conf"

	munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
		--pid-file="$dir/munged.pid" --log-file="$dir/munged.log" \
		--seed-file="$dir/munge/munged.seed" >>"$dir/munged.log" 2>&1 ||
		{ show_log "$dir/munged.log"; die "munged did not start"; }
	wait_for 10 test -S "$dir/munge/munge.socket" ||
		{ show_log "$dir/munged.log"; die "munged made no socket"; }
	# -c: a clean start, nothing read back from an earlier state.
	slurmctld -c >>"$dir/slurmctld.log" 2>&1 ||
		{ show_log "$dir/slurmctld.log"; die "slurmctld did not start"; }
	wait_for 20 scontrol ping >/dev/null 2>&1 ||
		{ show_log "$dir/slurmctld.log"; die "slurmctld does not answer"; }
	slurmd -N "$host" >>"$dir/slurmd.log" 2>&1 ||
		{ show_log "$dir/slurmd.log"; die "slurmd did not start"; }
	wait_for 60 node_idle || {
		sinfo -N -l >&2 || true
		show_log "$dir/slurmd.log"
		show_log "$dir/slurmctld.log"
		die "the node did not become idle within 60 s"
	}
	echo "$me: cluster up in $dir: node $host ($cpus CPUs), partition debug, slurmctld port $ctld_port, slurmd port $slurmd_port"
	echo "$me: export SLURM_CONF=$conf"
}

# shellcheck disable=SC2317 # called by the EXIT trap
start_failed() {
	local rc=$?
	[ "$rc" -eq 0 ] || stop_cluster
	exit "$rc"
}

case $cmd in
start)
	# A half-started cluster is stopped again before the failure is reported.
	trap start_failed EXIT
	start_cluster
	;;
stop)
	[ -f "$conf" ] || { echo "$me: $dir has no slurm.conf: nothing to stop"; exit 0; }
	stop_cluster
	echo "$me: stopped the cluster in $dir"
	;;
status)
	up=0
	for daemon in munged slurmctld slurmd; do
		if p=$(pid_of "$dir/$daemon.pid" "$daemon"); then
			echo "$daemon $p"
			up=$((up + 1))
		fi
	done
	[ "$up" -eq 3 ] && scontrol ping >/dev/null 2>&1
	;;
esac
