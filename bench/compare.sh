#!/usr/bin/env bash
# Runs the same scenarios under tether and its peers and prints what
# happened as markdown tables: every cell of the README's comparison is a
# run of this script. Installs the peers with apt-get (and kill-port with
# npm, when npm is there). Signals only processes it started: each test
# command writes its own PID to a file, and nothing is looked up by name.
set -uo pipefail
cd "$(dirname "$0")/.."

need=()
for tool in tini dumb-init; do command -v "$tool" >/dev/null || need+=("$tool"); done
command -v fuser >/dev/null || need+=(psmisc)
command -v lsof >/dev/null || need+=(lsof)
if [ ${#need[@]} -gt 0 ]; then
	apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
work=$(mktemp -d)
mine=()
cleanup() {
	for p in "${mine[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT
go build -tags urfave_cli_no_docs -o "$work/tether" . || exit 1
go build -o "$work/listener" ./bench/listener || exit 1
kill_port=
if command -v npm >/dev/null && (cd "$work" && npm install --silent kill-port@2.0.1 >/dev/null 2>&1); then
	kill_port="$work/node_modules/.bin/kill-port"
fi
tether=$work/tether

alive() { [ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
waitfile() { for _ in $(seq 500); do [ -s "$1" ] && return 0; sleep 0.01; done; return 1; }
# verdict PID: "ends" if the process is gone, else "survives" (and it is
# killed: this script started it).
verdict() {
	if alive "$1"; then echo survives; kill -KILL "$1" 2>/dev/null; else echo ends; fi
}

# caller_killed WRAPPER...: a shell runs WRAPPER CMD and is killed with
# SIGKILL, as a CI runner or an impatient user kills a script.
caller_killed() {
	rm -f "$work/c"
	# The trailing ":" keeps bash from replacing itself with the wrapper.
	bash -c "$* /bin/sh -c 'echo \$\$ > $work/c; exec sleep 3001'; :" &
	local caller=$!
	waitfile "$work/c" || { echo "did not start"; return; }
	local c; c=$(cat "$work/c"); mine+=("$c")
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
	local c g; c=$(cat "$work/c"); g=$(cat "$work/g"); mine+=("$c" "$g")
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
	local g; g=$(cat "$work/g"); mine+=("$g")
	sleep 0.5
	verdict "$g"
}

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

# Port tools. A "stale" server: tethered, and its supervisor gone. A
# "foreign" one: not tethered. The verdict is whether the server is gone
# afterwards.
serve() { # KIND PORT: start a server of KIND on PORT; prints its PID
	rm -f "$work/p"
	if [ "$1" = stale ]; then
		# --exec --outlive-parent only stamps, with the shell that ran it
		# as supervisor; the shell exits, stranding the server.
		/bin/sh -c "$tether run --exec --outlive-parent --name stale -- /bin/sh -c 'echo \$\$ > $work/p; exec $work/listener $2' >/dev/null 2>&1 & sleep 0.2"
	else
		# Not on the pipe of the \$(serve) that started it.
		/bin/sh -c "echo \$\$ > $work/p; exec $work/listener $2" >/dev/null 2>&1 &
	fi
	waitfile "$work/p"; sleep 0.3
	cat "$work/p"
}
declare -A ptool=(
	[t]="$tether reclaim --port" [f]="fuser -k -n tcp" [l]="lsof_kill" [k]="$kill_port"
)
declare -A pname=([t]="tether reclaim --port P" [f]="fuser -k -n tcp P" [l]="lsof -ti :P \| xargs kill" [k]="kill-port P")
lsof_kill() { lsof -ti ":$1" | xargs -r kill; }
porder=(t f l k)
declare -A p1 p2
for k in "${porder[@]}"; do
	for kind in stale foreign; do
		port=$((20000 + RANDOM % 20000))
		pid=$(serve "$kind" "$port"); mine+=("$pid")
		if [ "$k" = k ] && [ -z "$kill_port" ]; then res="not run (no npm)"
		else
			${ptool[$k]} "$port" >/dev/null 2>&1
			sleep 0.5
			if alive "$pid"; then res="left alone"; kill -KILL "$pid"; else res="killed"; fi
		fi
		if [ "$kind" = stale ]; then p1[$k]=$res; else p2[$k]=$res; fi
	done
done
echo "## Port tools: a server on the port"
echo
printf '| server on the port |'; for k in "${porder[@]}"; do printf ' %s |' "${pname[$k]}"; done; echo
printf '|---|'; for k in "${porder[@]}"; do printf -- '---|'; done; echo
printf '| started by tether, supervisor gone (stale) |'; for k in "${porder[@]}"; do printf ' %s |' "${p1[$k]}"; done; echo
printf '| not tethered (foreign) |'; for k in "${porder[@]}"; do printf ' %s |' "${p2[$k]}"; done; echo
