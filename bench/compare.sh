#!/usr/bin/env bash
# Runs the same scenarios under tether and its peers and prints what
# happened as markdown tables: every cell of docs/comparison.md is a
# run of this script. Installs the peers with apt-get (and kill-port with
# npm, when npm is there). Signals only processes it started: each test
# command writes its own PID to a file, and nothing is looked up by name.
# The port tools, which kill whatever their look-up names, are run in a PID
# namespace of their own when the script is root: they cannot see, so
# cannot signal, any process but the script's.
set -uo pipefail
self=$(realpath "$0")
cd "$(dirname "$0")/.."
# Set in that namespace, where this script runs again for the port tools
# alone: the outer run's work directory, which holds the builds.
inner=${COMPARE_INNER:-}

need=()
for tool in tini dumb-init; do command -v "$tool" >/dev/null || need+=("$tool"); done
command -v fuser >/dev/null || need+=(psmisc)
command -v lsof >/dev/null || need+=(lsof)
if [ ${#need[@]} -gt 0 ] && [ -z "$inner" ]; then
	apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
work=${inner:-$(mktemp -d)}
# Each process the script started, by PID and start time: at the end only
# those still alive with the same start time are killed, so that a PID
# recycled meanwhile by someone else's process is never signalled.
declare -A started
startof() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return; s=${s##*) }; set -- $s; echo "${20}"; }
own() { local p; for p in "$@"; do started[$p]=$(startof "$p"); done; }
end_own() {
	local p
	for p in "$@"; do
		[ -n "${started[$p]:-}" ] && [ "$(startof "$p")" = "${started[$p]}" ] && kill -KILL "$p" 2>/dev/null
	done
}
cleanup() {
	end_own "${!started[@]}"
	[ -n "$inner" ] || rm -rf "$work"
}
trap cleanup EXIT
kill_port=${COMPARE_KILL_PORT:-}
if [ -z "$inner" ]; then
	go build -tags urfave_cli_no_docs -o "$work/tether" . || exit 1
	go build -o "$work/listener" ./bench/testdata/listener || exit 1
	if command -v npm >/dev/null && (cd "$work" && npm install --silent kill-port@2.0.1 >/dev/null 2>&1); then
		kill_port="$work/node_modules/.bin/kill-port"
	fi
fi
tether=$work/tether

alive() { [ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
waitfile() { for _ in $(seq 500); do [ -s "$1" ] && return 0; sleep 0.01; done; return 1; }
# verdict PID: "ends" if the process is gone, else "survives" (and it is
# killed: this script started it).
verdict() {
	if alive "$1"; then echo survives; end_own "$1"; else echo ends; fi
}

# caller_killed WRAPPER...: a shell runs WRAPPER CMD and is killed with
# SIGKILL, as a CI runner or an impatient user kills a script.
caller_killed() {
	rm -f "$work/c"
	# The trailing ":" keeps bash from replacing itself with the wrapper.
	bash -c "$* /bin/sh -c 'echo \$\$ > $work/c; exec sleep 3001'; :" &
	local caller=$!
	waitfile "$work/c" || { echo "did not start"; return; }
	local c; c=$(cat "$work/c"); own "$c"
	kill -KILL "$caller"; wait "$caller" 2>/dev/null
	sleep 2
	verdict "$c"
}

# wrapper_killed WRAPPER...: the wrapper itself is killed with SIGKILL
# while its command runs with a setsid grandchild. Prints two verdicts.
wrapper_killed() {
	rm -f "$work/c" "$work/g"
	"$@" /bin/sh -c "setsid /bin/sh -c 'echo \$\$ > $work/g; exec sleep 3002' & echo \$\$ > $work/c; exec sleep 3002" &
	local w=$!
	waitfile "$work/c" && waitfile "$work/g" || { echo "did not start"; return; }
	local c g; c=$(cat "$work/c"); g=$(cat "$work/g"); own "$c" "$g"
	kill -KILL "$w"; wait "$w" 2>/dev/null
	sleep 2
	echo "$(verdict "$c") $(verdict "$g")"
}

# command_exits WRAPPER...: the command exits and leaves a setsid
# grandchild behind.
command_exits() {
	rm -f "$work/g"
	"$@" /bin/sh -c "setsid /bin/sh -c 'echo \$\$ > $work/g; exec sleep 3003' & sleep 0.3; exit 0"
	waitfile "$work/g" || { echo "did not start"; return; }
	local g; g=$(cat "$work/g"); own "$g"
	sleep 0.5
	verdict "$g"
}

if [ -z "$inner" ]; then
declare -A name=(
	[t]="tether run" [ti]="tini -s" [tip]="tini -s -p SIGTERM" [d]="dumb-init" [s]="setpriv --pdeathsig TERM"
)
declare -A cmd=(
	[t]="$tether run --grace 1s --" [ti]="tini -s --" [tip]="tini -s -p SIGTERM --" [d]="dumb-init" [s]="setpriv --pdeathsig TERM --"
)
order=(t ti tip d s)
declare -A r1 r2 r3 r4
for k in "${order[@]}"; do
	r1[$k]=$(caller_killed ${cmd[$k]})
	read -r a b <<<"$(wrapper_killed ${cmd[$k]})"
	r2[$k]=$a; r3[$k]=$b
	r4[$k]=$(command_exits ${cmd[$k]})
done

echo "## Supervisors: what outlives what ($(date -u +%Y-%m-%d), $(uname -sr))"
echo
printf '| scenario |'; for k in "${order[@]}"; do printf ' %s |' "${name[$k]}"; done; echo
printf '|---|'; for k in "${order[@]}"; do printf -- '---|'; done; echo
printf '| its caller is killed with SIGKILL: the command |'; for k in "${order[@]}"; do printf ' %s |' "${r1[$k]}"; done; echo
printf '| it is killed with SIGKILL: the command |'; for k in "${order[@]}"; do printf ' %s |' "${r2[$k]}"; done; echo
printf '| it is killed with SIGKILL: a setsid grandchild |'; for k in "${order[@]}"; do printf ' %s |' "${r3[$k]}"; done; echo
printf '| the command exits: its setsid grandchild |'; for k in "${order[@]}"; do printf ' %s |' "${r4[$k]}"; done; echo
echo
fi

# The port tools in a PID namespace of their own, when it can be had.
if [ -z "$inner" ] && [ "$(id -u)" = 0 ] && unshare --pid --fork --mount-proc true 2>/dev/null; then
	COMPARE_INNER=$work COMPARE_KILL_PORT=$kill_port unshare --pid --fork --mount-proc bash "$self"
	exit
fi

# Port tools, each run against a server it is to free the port of, and
# against the processes around it that it should leave: a client connected
# to the port, a process that took the server's PID. Each cell says what
# became of the processes and the tool's exit status (and, for tether,
# whether its output named the holder).
#
# A "stale" server: tethered, and its supervisor gone. A "foreign" one:
# not tethered. serve KIND PORT starts one; it prints its PID, or the PIDs
# of the master and its workers.
serve() {
	rm -f "$work/p"
	case $1 in
	stale)
		# --exec --outlive-parent only stamps, with the shell that ran it
		# as supervisor; the shell exits, stranding the server.
		/bin/sh -c "$tether run --exec --outlive-parent --name stale -- /bin/sh -c 'echo \$\$ > $work/p; exec $work/listener $2' >/dev/null 2>&1 & sleep 0.2" ;;
	foreign)
		# Not on the pipe of the \$(serve) that started it.
		/bin/sh -c "echo \$\$ > $work/p; exec $work/listener $2" >/dev/null 2>&1 & ;;
	renamed)
		# Perl's $0 writes the title over argv and the environment after
		# it, as nginx, redis and setproctitle do: a few variables, so
		# that there is an environment to write over.
		env -i PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 SERVER_NAME=renamed-server \
			SERVER_CONFIG=/etc/renamed-server/config.toml \
			perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(Listen => 5, LocalAddr => "127.0.0.1", LocalPort => $ARGV[0]) or die "$!\n";
				$0 = "srv: master"; open(my $f, ">", $ARGV[1]) or die; print $f "$$\n"; close $f; sleep 300' "$2" "$work/p" >/dev/null 2>&1 & ;;
	deaf)
		# Ignores TERM, as a server stuck in its shutdown does.
		perl -MIO::Socket::INET -e '$SIG{TERM} = "IGNORE"; $s = IO::Socket::INET->new(Listen => 5, LocalAddr => "127.0.0.1", LocalPort => $ARGV[0]) or die "$!\n";
			open(my $f, ">", $ARGV[1]) or die; print $f "$$\n"; close $f; sleep 300' "$2" "$work/p" >/dev/null 2>&1 & ;;
	workers)
		# Listens, then forks two workers that share the listening
		# socket (a pre-forking server: nginx, gunicorn, apache).
		python3 -c 'import os, socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
pids = [os.getpid()]
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        time.sleep(300)
        os._exit(0)
    pids.append(pid)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(" ".join(map(str, pids)) + "\n")
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
time.sleep(300)' "$2" "$work/p" >/dev/null 2>&1 & ;;
	esac
	waitfile "$work/p"; sleep 0.3
	cat "$work/p"
}
# client PORT: a process holding a connection to PORT; prints its PID.
client() {
	rm -f "$work/cl"
	perl -MIO::Socket::INET -e '$c = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $ARGV[0]) or die "$!\n";
		open(my $f, ">", $ARGV[1]) or die; print $f "$$\n"; close $f; sleep 300' "$1" "$work/cl" >/dev/null 2>&1 &
	waitfile "$work/cl"; sleep 0.1
	cat "$work/cl"
}
# As typed at a prompt: sh, not this script's pipefail; xargs without -r.
lsof_kill() { sh -c "lsof -ti :$1 | xargs kill"; }
# freeport: a port below the ephemeral range that no socket uses, at
# either end: the one each server is started on.
freeport() {
	local low p
	read -r low _ </proc/sys/net/ipv4/ip_local_port_range
	while :; do
		p=$((20000 + RANDOM % (low - 20000)))
		[ -z "$(ss -Htuan "( sport = :$p or dport = :$p )")" ] && { echo "$p"; return; }
	done
}
declare -A ptool=(
	[t]="$tether reclaim --grace 2s --port" [tf]="$tether reclaim --grace 2s --foreign --port"
	[f]="fuser -k -n tcp" [l]="lsof_kill" [k]="$kill_port"
)
declare -A pname=(
	[t]="tether reclaim --port P" [tf]="tether reclaim --port P --foreign" [f]="fuser -k -n tcp P"
	[l]="lsof -ti :P \| xargs kill" [k]="kill-port P"
)
porder=(t tf f l k)
# gone PID...: waits up to 4 s (tether's grace, 2 s, and then some) for all to be gone; prints how many are.
gone() {
	local n
	for _ in $(seq 400); do
		n=0
		for p in "$@"; do alive "$p" || n=$((n + 1)); done
		[ "$n" -eq $# ] && break
		sleep 0.01
	done
	echo "$n"
}
# tool KEY PORT PID: runs the port tool KEY on PORT; sets $rc, and $how to
# " (exit N)" and, for tether, whether its output names PID and how.
tool() {
	local out
	out=$(${ptool[$1]} "$2" 2>&1); rc=$?
	how=" (exit $rc"
	if [ "${1:0:1}" = t ] && [ $rc != 0 ]; then
		case $out in *"$3 (unverifiable)"*) how+=", named: unverifiable" ;; *"PID $3:"* | *"$3 ("*) how+=", named" ;; esac
	fi
	how+=")"
	echo "$1 on $2 (exit $rc): $out" >>"$work/log"
}
declare -A p1 p2 p3 p5 p6 p7 p8
for k in "${porder[@]}"; do
	if [ "$k" = k ] && [ -z "$kill_port" ]; then
		p1[$k]="not run (no npm)"; p2[$k]=${p1[$k]}; p3[$k]=${p1[$k]}; p5[$k]=${p1[$k]}; p6[$k]=${p1[$k]}; p7[$k]=${p1[$k]}; p8[$k]=${p1[$k]}
		continue
	fi
	for kind in stale foreign renamed deaf; do
		port=$(freeport)
		pid=$(serve "$kind" "$port"); own "$pid"
		tool "$k" "$port" "$pid"
		if [ "$(gone "$pid")" = 1 ]; then res="killed$how"; else res="left alone$how"; end_own "$pid"; fi
		case $kind in stale) p1[$k]=$res ;; foreign) p2[$k]=$res ;; renamed) p5[$k]=$res ;; deaf) p7[$k]=$res ;; esac
	done
	# Nothing on the port: does the exit status say that it is free?
	port=$(freeport)
	tool "$k" "$port" 0
	p8[$k]="exit $rc"
	# A foreign server and a client connected to it.
	port=$(freeport)
	pid=$(serve foreign "$port"); own "$pid"
	cl=$(client "$port"); own "$cl"
	tool "$k" "$port" "$pid"
	s=server; [ "$(gone "$pid")" = 1 ] && s+=" killed" || s+=" left alone"
	c=client; [ "$(gone "$cl")" = 1 ] && c+=" killed" || c+=" left alone"
	if [ "$s $c" = "server left alone client left alone" ]; then p3[$k]="both left alone$how"; else p3[$k]="$s, $c$how"; fi
	end_own "$pid" "$cl"
	# A server and two forked workers sharing its socket.
	port=$(freeport)
	read -r -a ws <<<"$(serve workers "$port")"; own "${ws[@]}"
	tool "$k" "$port" "${ws[0]}"
	n=$(gone "${ws[@]}")
	case $n in 0) p6[$k]="left alone$how" ;; "${#ws[@]}") p6[$k]="all ${#ws[@]} killed$how" ;; *) p6[$k]="$n of ${#ws[@]} killed$how" ;; esac
	end_own "${ws[@]}"
done

# A PID recycled between look-up and kill, staged for real in a PID
# namespace of its own (unshare), whose PID 1 is the shell that stages
# it: nothing outside it can be signalled or take the PID, and all it
# started dies with it. The tool runs unchanged under strace, which holds
# it for 2 s as it enters the system call that signals the holder: kill(2)
# for fuser, xargs' kill and kill-port; for tether the pidfd_open of the
# holder (its only one: the pidfd is opened before the holder is checked,
# and the signal goes through it), or its pidfd_send_signal. Meanwhile the holder exits (TERM, from the stager),
# ns_last_pid is set so that the next process gets its PID, and a sleep is
# started. The cell says what became of the sleep.
cat >"$work/recycle.sh" <<'INNER'
set -u
key=$1 port=$2 at=$3 d=$4
# at_syscall NR ARG0: waits until some task is held entering system call
# NR (with first argument ARG0, unless empty): seen in two looks 10 ms
# apart, as only a call held by strace is.
at_syscall() {
	local seen=0 hit s a rest f
	for _ in $(seq 1000); do
		hit=0
		for f in /proc/[0-9]*/task/[0-9]*/syscall; do
			read -r s a rest <"$f" 2>/dev/null || continue
			if [ "$s" = "$1" ] && { [ -z "$2" ] || [ "$a" = "$2" ]; }; then hit=1; break; fi
		done
		if [ $hit = 1 ]; then seen=$((seen + 1)); [ $seen = 2 ] && return 0; else seen=0; fi
		sleep 0.01
	done
	return 1
}
rm -f "$d/p"
if [ "$key" = t ]; then
	/bin/sh -c "$tether run --exec --outlive-parent --name stale -- /bin/sh -c 'echo \$\$ > $d/p; exec $listener $port' >/dev/null 2>&1 & sleep 0.2"
else
	/bin/sh -c "echo \$\$ > $d/p; exec $listener $port" >/dev/null 2>&1 &
fi
for _ in $(seq 500); do [ -s "$d/p" ] && break; sleep 0.01; done
sleep 0.3
h=$(cat "$d/p")
case $key in
t) cmd=("$tether" reclaim --grace 2s --port "$port") ;;
tf) cmd=("$tether" reclaim --grace 2s --foreign --port "$port") ;;
f) cmd=(fuser -k -n tcp "$port") ;;
l) cmd=(sh -c "lsof -ti :$port | xargs kill") ;;
k) cmd=("$kill_port" "$port") ;;
esac
case $at in
kill) sc=kill nr=62 a0=$(printf '0x%x' "$h") when= ;;
# The pidfd_open of the holder, before it is checked.
open) sc=pidfd_open nr=434 a0=$(printf '0x%x' "$h") when= ;;
# The second pidfd_send_signal: the first is tether's probe of pidfds
# (signal 0 to itself).
signal) sc=pidfd_send_signal nr=424 a0= when=:when=2 ;;
esac
strace -f -qq -o "$d/strace" -e trace="$sc" -e inject="$sc:delay_enter=2000000$when" "${cmd[@]}" >"$d/out" 2>&1 &
s=$!
if ! at_syscall "$nr" "$a0"; then
	wait "$s"
	echo "not staged: $sc of $h not seen"
	exit
fi
kill -TERM "$h"
for _ in $(seq 200); do [ -e "/proc/$h" ] || break; sleep 0.01; done
echo $((h - 1)) >/proc/sys/kernel/ns_last_pid
sleep 300 &
r=$!
wait "$s"
rc=$?
{ echo "$key at $at: holder $h, new process $r, exit $rc:"; cat "$d/out"; } >>"$d/log"
if [ "$r" != "$h" ]; then
	echo "not staged: the new process got PID $r, not $h"
elif [ -e "/proc/$r" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$r/status"; then
	echo "the new process not signalled (exit $rc)"
else
	wait "$r"
	st=$?
	[ $st -gt 128 ] && sig=$(kill -l $((st - 128))) || sig="exit $st"
	echo "the new process killed (SIG$sig) (exit $rc)"
fi
INNER
# recycled KEY AT: one staged run (up to three tries).
recycled() {
	local res
	for _ in 1 2 3; do
		res=$(tether=$tether listener=$work/listener kill_port=$kill_port \
			unshare --pid --fork --mount-proc bash "$work/recycle.sh" "$1" "$(freeport)" "$2" "$work" 2>>"$work/log")
		case $res in "not staged"*) echo "$1 at $2: $res" >>"$work/log" ;; *) break ;; esac
	done
	echo "$res"
}
declare -A p4
if command -v strace >/dev/null && command -v unshare >/dev/null && [ "$(id -u)" = 0 ]; then
	for k in "${porder[@]}"; do
		if [ "$k" = k ] && [ -z "$kill_port" ]; then p4[$k]="not run (no npm)"; continue; fi
		if [ "${k:0:1}" = t ]; then
			p4[$k]=$(recycled "$k" open)
			[ "$k" = tf ] && p4[$k]+="; at its signal: $(recycled "$k" signal)"
		else
			p4[$k]=$(recycled "$k" kill)
		fi
	done
else
	for k in "${porder[@]}"; do p4[$k]="not run (needs root, strace, unshare)"; done
fi

echo "## Port tools ($(date -u +%Y-%m-%d), $(uname -sr))"
echo
echo "fuser: $(fuser -V 2>&1 | head -1); lsof $(lsof -v 2>&1 | sed -n 's/^ *revision: //p'); kill-port 2.0.1 on node $(node -v 2>/dev/null || echo -);" \
	"$(perl -e 'printf "perl %vd", $^V'); $(python3 -V); $(strace -V | head -1)"
echo
printf '| |'; for k in "${porder[@]}"; do printf ' %s |' "${pname[$k]}"; done; echo
printf '|---|'; for k in "${porder[@]}"; do printf -- '---|'; done; echo
row() { printf '| %s |' "$1"; local -n r=$2; for k in "${porder[@]}"; do printf ' %s |' "${r[$k]}"; done; echo; }
row "a server started by tether, its supervisor gone (stale)" p1
row "a server tether did not start (foreign)" p2
row "a foreign server, and a client connected to the port" p3
row "a PID recycled between look-up and kill" p4
row "a server that renamed itself (Perl \`\$0\`)" p5
row "a server with two forked workers sharing its socket" p6
row "a foreign server that ignores TERM" p7
row "nothing on the port" p8
echo
if [ -n "${COMPARE_LOG:-}" ]; then cp "$work/log" "$COMPARE_LOG"; fi
