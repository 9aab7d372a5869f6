#!/usr/bin/env bash
# Rootless Podman and rootless Docker for the tests, run by CI as root.
#
#   .ci/rootless-engines.sh start    start both engines for a test user; prints
#                                    `export TETHER_TEST_ROOTLESS_...=...` lines
#                                    (eval "$(.ci/rootless-engines.sh start)")
#   .ci/rootless-engines.sh stop     remove the user's containers of both
#                                    engines, stop what start started, put
#                                    /dev/net/tun's mode back
#   .ci/rootless-engines.sh status   what runs; prints the export lines
#   .ci/rootless-engines.sh env      prints the export lines of the last start
#   .ci/rootless-engines.sh purge    stop, then delete the user (and its home,
#                                    images included) if this script made it
#
#   source .ci/rootless-engines.sh [start]   start, then export the variables
#   source .ci/rootless-engines.sh stop      stop, then unset them
#   (sourcing defines rootless_engines_start / rootless_engines_stop too; pass
#   the argument explicitly: a bare `source` sees the caller's "$1")
#
# Exported for the tests:
#   TETHER_TEST_ROOTLESS_USER, TETHER_TEST_ROOTLESS_UID,
#   TETHER_TEST_ROOTLESS_RUNTIME_DIR (/run/user/UID), TETHER_TEST_ROOTLESS_IMAGE
#   TETHER_TEST_ROOTLESS_PODMAN=1 and TETHER_TEST_ROOTLESS_PODMAN_SOCK when the
#     user's `podman system service` answers on RUNTIME_DIR/podman/podman.sock
#   TETHER_TEST_ROOTLESS_DOCKER=1 and TETHER_TEST_ROOTLESS_DOCKER_SOCK when the
#     user's rootless dockerd answers on RUNTIME_DIR/docker.sock
#
# Every step fails soft: an engine that cannot start costs one line on stderr
# saying why, its variable stays unset, and the tests that need it skip.
# Signals go only to the PIDs this script started (pid and start time are
# recorded in $TETHER_ROOTLESS_STATE); Podman's own pause process is stopped
# by `podman system migrate`. The user, its home, its /etc/subuid and
# /etc/subgid lines and the images stay after stop (so the next start is
# quick); purge removes them if this script created them.
#
# Settings (environment): TETHER_ROOTLESS_USER (tetherci), TETHER_ROOTLESS_UID
# (1001, or the next free one), TETHER_ROOTLESS_IMAGE (tb-bb:1),
# TETHER_ROOTLESS_ENGINES ("podman docker"), TETHER_ROOTLESS_STATE
# (/run/tether-rootless), TETHER_ROOTLESS_DOCKERD_FLAGS (extra dockerd flags).

# ---- sourced: run the work in a child bash (whatever the caller's set -e,
# -u, pipefail), then export or unset the variables in the caller's shell.
if [ -n "${BASH_SOURCE[0]:-}" ] && [ "${BASH_SOURCE[0]}" != "$0" ]; then
	_tre_self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
	_tre_unset() {
		unset TETHER_TEST_ROOTLESS_USER TETHER_TEST_ROOTLESS_UID TETHER_TEST_ROOTLESS_RUNTIME_DIR \
			TETHER_TEST_ROOTLESS_IMAGE TETHER_TEST_ROOTLESS_PODMAN TETHER_TEST_ROOTLESS_PODMAN_SOCK \
			TETHER_TEST_ROOTLESS_DOCKER TETHER_TEST_ROOTLESS_DOCKER_SOCK
	}
	rootless_engines_start() {
		local out
		out=$(bash "$_tre_self" start) || true
		_tre_unset
		eval "$out"
		printf '%s\n' "$out"
	}
	rootless_engines_stop() {
		bash "$_tre_self" stop || true
		_tre_unset
	}
	case "${1:-start}" in
	stop) rootless_engines_stop ;;
	status | env) bash "$_tre_self" "$1" || true ;;
	functions) ;;
	*) rootless_engines_start ;;
	esac
	return 0
fi

# ---- executed
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH

RL_USER=${TETHER_ROOTLESS_USER:-tetherci}
RL_WANT_UID=${TETHER_ROOTLESS_UID:-1001}
RL_IMAGE=${TETHER_ROOTLESS_IMAGE:-tb-bb:1}
RL_ENGINES=${TETHER_ROOTLESS_ENGINES:-podman docker}
STATE=${TETHER_ROOTLESS_STATE:-/run/tether-rootless}
KEEP=/var/lib/tether-rootless # what this script created, across reboots
SUB_START=200000
SUB_COUNT=65536
TUN=/dev/net/tun
DOCKERD_ROOTLESS_DIR=/usr/share/docker.io/contrib # on the user's PATH (dockerd-rootless.sh)

say() { echo "rootless-engines: $*" >&2; }

# The whole start stays within ~55 s, Podman's part within 25 s of its
# beginning (so Docker gets its turn): tmo N prints min(N, what is left).
DEADLINE=$((SECONDS + 55))
tmo() {
	local left=$((${2:-$DEADLINE} - SECONDS))
	((left < $1)) || left=$1
	((left > 0)) || left=1
	echo "$left"
}

# pid_start PID: the process's start time (field 22 of /proc/PID/stat), or nothing.
pid_start() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	local -a f
	read -r -a f <<<"$s"
	# f[0] is field 3 (state); a zombie counts as gone
	[ "${f[0]}" != Z ] || return 1
	echo "${f[19]}"
}

# recorded NAME: the pid in $STATE/NAME.pid if that process is still the one
# this script started (same start time, owned by the user).
recorded() {
	local pid st now
	[ -r "$STATE/$1.pid" ] || return 1
	read -r pid st <"$STATE/$1.pid" || return 1
	case "$pid" in '' | *[!0-9]*) return 1 ;; esac
	now=$(pid_start "$pid") || return 1
	[ "$now" = "$st" ] || return 1
	[ "$(stat -c %u "/proc/$pid" 2>/dev/null)" = "$RL_UID" ] || return 1
	echo "$pid"
}

# stop_recorded NAME SECONDS: TERM the recorded pid, wait, then KILL it.
stop_recorded() {
	local pid i
	pid=$(recorded "$1") || { rm -f "$STATE/$1.pid"; return 0; }
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < $2 * 5; i++)); do
		pid_start "$pid" >/dev/null || break
		sleep 0.2
	done
	if pid_start "$pid" >/dev/null; then
		say "$1 (pid $pid) still there after ${2}s: SIGKILL"
		kill -KILL "$pid" 2>/dev/null
		for ((i = 0; i < 25; i++)); do
			pid_start "$pid" >/dev/null || break
			sleep 0.2
		done
	fi
	rm -f "$STATE/$1.pid"
}

resolve_user() {
	RL_UID=$(id -u "$RL_USER" 2>/dev/null) || return 1
	RL_GID=$(id -g "$RL_USER")
	RL_HOME=$(getent passwd "$RL_USER" | cut -d: -f6)
	RT=/run/user/$RL_UID
	PODMAN_SOCK=$RT/podman/podman.sock
	DOCKER_SOCK=$RT/docker.sock
}

# as_user CMD...: CMD as the user, with a clean login-like environment.
as_user() {
	(
		cd "$RL_HOME" 2>/dev/null || cd /
		exec setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups \
			env -i HOME="$RL_HOME" USER="$RL_USER" LOGNAME="$RL_USER" SHELL=/bin/sh LANG=C.UTF-8 \
			PATH="/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin:$DOCKERD_ROOTLESS_DIR" \
			XDG_RUNTIME_DIR="$RT" "$@"
	)
}

# spawn NAME LOG CMD...: CMD in the background as the user, in its own
# session, stdio on LOG; records "pid starttime" in $STATE/NAME.pid.
spawn() {
	local name=$1 log=$2 pid st i
	shift 2
	rm -f "$STATE/$name.pid.tmp"
	setsid sh -c 'echo $$ >"$0"; exec "$@"' "$STATE/$name.pid.tmp" \
		setpriv --reuid="$RL_UID" --regid="$RL_GID" --init-groups \
		env -i HOME="$RL_HOME" USER="$RL_USER" LOGNAME="$RL_USER" SHELL=/bin/sh LANG=C.UTF-8 \
		PATH="/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin:$DOCKERD_ROOTLESS_DIR" \
		XDG_RUNTIME_DIR="$RT" "$@" </dev/null >"$log" 2>&1 &
	disown $! 2>/dev/null # no "Killed" job report from this shell
	for ((i = 0; i < 50; i++)); do
		[ -s "$STATE/$name.pid.tmp" ] && break
		sleep 0.1
	done
	read -r pid <"$STATE/$name.pid.tmp" 2>/dev/null
	rm -f "$STATE/$name.pid.tmp"
	st=$(pid_start "$pid") || return 1
	echo "$pid $st" >"$STATE/$name.pid"
}

# ping SOCK: the Engine API's /_ping answers OK.
ping() {
	[ -S "$1" ] || return 1
	[ "$(curl -s -m 2 --unix-socket "$1" http://d/_ping 2>/dev/null)" = OK ]
}

# log_reason LOG: the line of LOG most likely to say why a start failed
# (not the shell's -x trace, not rootlesskit's wrapping, not info/warnings).
log_reason() {
	local r
	r=$(grep -vE '^\+|^\[rootlesskit|^See |level=(info|warning|debug)|not a shared mount|^$' "$1" 2>/dev/null | tail -n 1)
	[ -n "$r" ] || r=$(grep -E '^\[rootlesskit|level=(error|fatal)' "$1" 2>/dev/null | tail -n 1)
	[ -n "$r" ] || r=$(grep -vE '^\+|^$' "$1" 2>/dev/null | tail -n 1)
	r=${r:-nothing logged}
	echo "${r:0:300}"
}

# busybox_tar: a one-binary root filesystem (/bin/busybox) on stdout.
busybox_tar() {
	local d
	d=$(mktemp -d "$STATE/tmp.XXXXXX") || return 1
	mkdir -p "$d/bin" && cp /bin/busybox "$d/bin/" &&
		tar -C "$d" --owner=0 --group=0 --numeric-owner -c .
	local rc=$?
	rm -rf "$d"
	return $rc
}

write_env() {
	{
		echo "export TETHER_TEST_ROOTLESS_USER=$RL_USER"
		echo "export TETHER_TEST_ROOTLESS_UID=$RL_UID"
		echo "export TETHER_TEST_ROOTLESS_RUNTIME_DIR=$RT"
		echo "export TETHER_TEST_ROOTLESS_IMAGE=$RL_IMAGE"
		if ping "$PODMAN_SOCK"; then
			echo "export TETHER_TEST_ROOTLESS_PODMAN=1"
			echo "export TETHER_TEST_ROOTLESS_PODMAN_SOCK=$PODMAN_SOCK"
		fi
		if ping "$DOCKER_SOCK"; then
			echo "export TETHER_TEST_ROOTLESS_DOCKER=1"
			echo "export TETHER_TEST_ROOTLESS_DOCKER_SOCK=$DOCKER_SOCK"
		fi
	} >"$STATE/env"
	cat "$STATE/env"
}

# ---- start steps

setup_user() {
	if ! id -u "$RL_USER" >/dev/null 2>&1; then
		local uid=$RL_WANT_UID
		while getent passwd "$uid" >/dev/null || getent group "$uid" >/dev/null; do
			uid=$((uid + 1))
		done
		local grp=-U
		getent group "$RL_USER" >/dev/null && grp="-g $RL_USER"
		# shellcheck disable=SC2086
		useradd -m -u "$uid" $grp -s /bin/bash "$RL_USER" || { say "useradd $RL_USER failed"; return 1; }
		echo "$RL_USER" >"$KEEP/created-user"
	fi
	resolve_user || return 1
	local f
	for f in /etc/subuid /etc/subgid; do
		[ -e "$f" ] || { : >"$f"; chmod 644 "$f"; }
		if ! grep -qE "^($RL_USER|$RL_UID):" "$f"; then
			# useradd usually adds a range itself; else the first free one from 200000
			local start
			start=$(awk -F: -v s="$SUB_START" -v c="$SUB_COUNT" '
				{ b[NR] = $2; e[NR] = $2 + $3 }
				END { do { moved = 0; for (i in b) if (s < e[i] && s + c > b[i]) { s = e[i]; moved = 1 } } while (moved); print s }' "$f")
			echo "$RL_USER:$start:$SUB_COUNT" >>"$f"
			echo "$RL_USER:$start:$SUB_COUNT" >"$KEEP/added-$(basename "$f")"
		fi
	done
	if [ ! -d "$RT" ]; then
		[ -d /run/user ] || mkdir -m 755 /run/user
		mkdir -m 700 "$RT" && echo "$RT" >"$STATE/created-runtime-dir"
	fi
	chown "$RL_UID:$RL_GID" "$RT" && chmod 700 "$RT"
}

setup_tun() {
	if [ ! -e "$TUN" ]; then
		mkdir -p /dev/net && mknod -m 600 "$TUN" c 10 200 && echo 1 >"$STATE/tun.created" ||
			{ say "no $TUN and mknod failed: slirp4netns cannot work"; return 1; }
	fi
	[ -e "$STATE/tun.mode" ] || stat -c %a "$TUN" >"$STATE/tun.mode"
	chmod 0666 "$TUN"
}

podman_config() {
	local d=$RL_HOME/.config/containers
	as_user mkdir -p "$d" "$RT/podman" || return 1
	as_user sh -c 'cat >"$1"' sh "$d/storage.conf" <<EOF
# written by tether's .ci/rootless-engines.sh
[storage]
driver = "vfs"
runroot = "$RT/containers"
graphroot = "$RL_HOME/.local/share/containers/storage"
EOF
	as_user sh -c 'cat >"$1"' sh "$d/containers.conf" <<EOF
# written by tether's .ci/rootless-engines.sh
# no systemd (no user session, no dbus): cgroupfs and a file event log
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
EOF
}

start_podman() {
	command -v podman >/dev/null || { say "podman: not installed"; return 1; }
	podman_config || { say "podman: cannot write $RL_HOME/.config/containers"; return 1; }
	local out pdl=$((SECONDS + 25))
	((pdl < DEADLINE)) || pdl=$DEADLINE
	if ! out=$(as_user timeout "$(tmo 15 "$pdl")" podman info --format '{{.Host.Security.Rootless}}' 2>&1); then
		say "podman: 'podman info' as $RL_USER failed: $(grep -v 'not a shared mount' <<<"$out" | tail -n 1)"
		return 1
	fi
	if ! as_user timeout "$(tmo 10 "$pdl")" podman image exists "$RL_IMAGE" 2>/dev/null; then
		if ! out=$(busybox_tar | as_user timeout "$(tmo 20 "$pdl")" podman import - "$RL_IMAGE" 2>&1); then
			say "podman: import of $RL_IMAGE failed: $(tail -n 1 <<<"$out")"
		fi
	fi
	if recorded podman-service >/dev/null && ping "$PODMAN_SOCK"; then
		return 0
	fi
	stop_recorded podman-service 5
	as_user rm -f "$PODMAN_SOCK"
	spawn podman-service "$STATE/podman-service.log" \
		podman system service --time=0 "unix://$PODMAN_SOCK" ||
		{ say "podman: the service exited at once: $(log_reason "$STATE/podman-service.log")"; return 1; }
	local until=$((SECONDS + $(tmo 10 "$pdl")))
	while ((SECONDS < until)); do
		ping "$PODMAN_SOCK" && return 0
		recorded podman-service >/dev/null || break
		sleep 0.2
	done
	say "podman: the service does not answer on $PODMAN_SOCK: $(log_reason "$STATE/podman-service.log")"
	stop_recorded podman-service 5
	return 1
}

find_dockerd_rootless() {
	local f
	for f in "$(command -v dockerd-rootless.sh)" /usr/share/docker.io/contrib/dockerd-rootless.sh \
		/usr/bin/dockerd-rootless.sh /usr/share/docker-ce/contrib/dockerd-rootless.sh; do
		[ -n "$f" ] && [ -x "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# dockerd_once FLAGS...: start rootlesskit+dockerd, wait for its API.
dockerd_once() {
	as_user rm -f "$DOCKER_SOCK"
	# rootlesskit's state (api.sock, child_pid) under the runtime dir, not in /tmp
	as_user rm -rf "$RT/dockerd-rootless"
	spawn dockerd "$STATE/dockerd.log" env DOCKERD_ROOTLESS_ROOTLESSKIT_PORT_DRIVER=builtin \
		DOCKERD_ROOTLESS_ROOTLESSKIT_FLAGS="--state-dir=$RT/dockerd-rootless" \
		"$DOCKERD_ROOTLESS" -H "unix://$DOCKER_SOCK" --data-root "$RL_HOME/.local/share/docker" \
		"$@" || return 1
	local until=$((SECONDS + $(tmo 20)))
	while ((SECONDS < until)); do
		ping "$DOCKER_SOCK" && return 0
		recorded dockerd >/dev/null || return 1 # exited
		sleep 0.2
	done
	stop_recorded dockerd 5
	return 2 # no answer in time
}

start_docker() {
	local why=
	command -v dockerd >/dev/null || why="dockerd not installed"
	command -v rootlesskit >/dev/null || why="rootlesskit not installed"
	DOCKERD_ROOTLESS=$(find_dockerd_rootless) || why="dockerd-rootless.sh not found"
	[ -z "$why" ] || { say "docker: $why"; return 1; }
	DOCKERD_ROOTLESS_DIR=$(dirname "$DOCKERD_ROOTLESS")
	if ! { recorded dockerd >/dev/null && ping "$DOCKER_SOCK"; }; then
		stop_recorded dockerd 10
		local -a flags
		read -r -a flags <<<"${TETHER_ROOTLESS_DOCKERD_FLAGS:-}"
		local t0=$SECONDS rc first
		dockerd_once "${flags[@]}"
		rc=$?
		if [ $rc != 0 ]; then
			first=$(log_reason "$STATE/dockerd.log")
			[ $rc = 1 ] || first="no answer on $DOCKER_SOCK in $((SECONDS - t0))s; last log line: $first"
			# it exited (did not hang) and time is left: once more without iptables
			if [ $rc = 1 ] && ((DEADLINE - SECONDS >= 10)) && [[ " ${flags[*]} " != *" --iptables=false "* ]]; then
				mv -f "$STATE/dockerd.log" "$STATE/dockerd.log.1"
				if dockerd_once "${flags[@]}" --iptables=false; then
					say "docker: dockerd needed --iptables=false ($first)"
				else
					say "docker: rootless dockerd does not start: $first (log: $STATE/dockerd.log.1; with --iptables=false too: $(log_reason "$STATE/dockerd.log"))"
					return 1
				fi
			else
				say "docker: rootless dockerd does not start: $first (log: $STATE/dockerd.log)"
				return 1
			fi
		fi
	fi
	# import the image over the API (no need for a client of the right version)
	if ! curl -sf -m 5 --unix-socket "$DOCKER_SOCK" "http://d/images/${RL_IMAGE}/json" >/dev/null; then
		local repo=${RL_IMAGE%:*} tag=${RL_IMAGE##*:} out
		[ "$repo" != "$RL_IMAGE" ] || tag=latest
		out=$(busybox_tar | curl -s -m "$(tmo 20)" --unix-socket "$DOCKER_SOCK" -H 'Content-Type: application/x-tar' \
			--data-binary @- "http://d/images/create?fromSrc=-&repo=$repo&tag=$tag" 2>&1)
		curl -sf -m 5 --unix-socket "$DOCKER_SOCK" "http://d/images/${RL_IMAGE}/json" >/dev/null ||
			say "docker: import of $RL_IMAGE failed: $(tail -c 200 <<<"$out")"
	fi
}

do_start() {
	[ "$(id -u)" = 0 ] || { say "must run as root"; return 1; }
	mkdir -p "$STATE" "$KEEP" && chmod 700 "$STATE" || { say "cannot create $STATE"; return 1; }
	local t0=$SECONDS
	setup_user || { say "no test user: both engines skipped"; return 1; }
	setup_tun
	case " $RL_ENGINES " in *" podman "*) start_podman ;; esac
	case " $RL_ENGINES " in *" docker "*) start_docker ;; esac
	say "started in $((SECONDS - t0))s (user $RL_USER uid $RL_UID)"
	write_env
}

# ---- stop

# remove every container of both engines for the user
remove_containers() {
	if command -v podman >/dev/null; then
		as_user timeout 30 podman pod rm -a -f >/dev/null 2>&1
		as_user timeout 30 podman rm -a -f -t 0 >/dev/null 2>&1
	fi
	if ping "$DOCKER_SOCK"; then
		local id
		for id in $(curl -s -m 5 --unix-socket "$DOCKER_SOCK" 'http://d/containers/json?all=1' |
			grep -oE '"Id":"[0-9a-f]{64}"' | cut -d'"' -f4); do
			curl -s -m 20 -X DELETE --unix-socket "$DOCKER_SOCK" "http://d/containers/$id?force=1&v=1" >/dev/null
		done
	fi
}

do_stop() {
	[ "$(id -u)" = 0 ] || { say "must run as root"; return 1; }
	# no runtime dir: no engine of the user can be running (and Podman
	# would make one up under /tmp)
	if resolve_user && [ -d "$RT" ]; then
		remove_containers
		stop_recorded podman-service 10
		# Podman's pause process (it keeps the user namespace) is Podman's to stop
		command -v podman >/dev/null && [ -d "$RT/libpod" ] &&
			as_user timeout 20 podman system migrate >/dev/null 2>&1
		stop_recorded dockerd 20
		# anything the engines left mounted in the host's mount namespace
		local m
		for m in $(awk -v h="$RL_HOME/" -v r="$RT/" 'index($5, h) == 1 || index($5, r) == 1 { print $5 }' \
			/proc/self/mountinfo | sort -r); do
			umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || say "cannot unmount $m"
		done
		recorded dockerd >/dev/null || as_user rm -rf "$DOCKER_SOCK" "$RT/dockerd-rootless" 2>/dev/null
		recorded podman-service >/dev/null || as_user rm -f "$PODMAN_SOCK" 2>/dev/null
		local left
		left=$(ps -o pid=,stat=,args= -u "$RL_UID" 2>/dev/null | awk '$2 !~ /^Z/') # zombies: PID 1 reaps them
		if [ -n "$left" ]; then
			say "processes of $RL_USER still run (not signalled: not started by this script): $(tr '\n' ';' <<<"$left")"
		elif [ -f "$STATE/created-runtime-dir" ]; then
			rm -rf "$RT" && rm -f "$STATE/created-runtime-dir"
		fi
	fi
	if [ -e "$STATE/tun.mode" ]; then
		chmod "$(cat "$STATE/tun.mode")" "$TUN" && rm -f "$STATE/tun.mode"
	fi
	if [ -e "$STATE/tun.created" ]; then
		rm -f "$TUN" "$STATE/tun.created"
	fi
	rm -rf "$STATE"/tmp.* "$STATE/env"
	say "stopped"
}

do_purge() {
	do_stop
	if [ -f "$KEEP/created-user" ] && id -u "$(cat "$KEEP/created-user")" >/dev/null 2>&1; then
		local u
		u=$(cat "$KEEP/created-user")
		# the user's files under /run/user go with it (userdel leaves them)
		resolve_user && [ -z "$(ps -o pid= -u "$RL_UID")" ] && rm -rf "$RT"
		userdel -r "$u" 2>/dev/null || userdel "$u"
		say "deleted user $u"
	fi
	local f
	for f in subuid subgid; do
		[ -f "$KEEP/added-$f" ] || continue
		grep -vxF "$(cat "$KEEP/added-$f")" "/etc/$f" >"/etc/$f.tether" && cat "/etc/$f.tether" >"/etc/$f"
		rm -f "/etc/$f.tether" "$KEEP/added-$f"
	done
	rm -f "$KEEP/created-user"
	rm -rf "$STATE"; rmdir "$KEEP" 2>/dev/null
	return 0
}

do_status() {
	resolve_user || { say "no user $RL_USER"; return 1; }
	local p
	p=$(recorded podman-service) && say "podman service: pid $p" || say "podman service: not running"
	p=$(recorded dockerd) && say "rootless dockerd (rootlesskit): pid $p" || say "rootless dockerd: not running"
	say "$TUN mode $(stat -c %a "$TUN" 2>/dev/null) (saved: $(cat "$STATE/tun.mode" 2>/dev/null || echo none))"
	mkdir -p "$STATE"
	write_env
}

case "${1:-}" in
start) do_start ;;
stop) do_stop ;;
purge) do_purge ;;
status) do_status ;;
env) cat "$STATE/env" 2>/dev/null ;;
*)
	echo "usage: $0 start|stop|status|env|purge (or: source $0 [start|stop])" >&2
	exit 2
	;;
esac
exit 0
