#!/usr/bin/env bash
# Benchmarks freeing a port end to end: tether reclaim --foreign --port P
# against fuser -k -n tcp P, each run ending a freshly started listener
# that tether did not start (one that exits on TERM), with N idle
# processes alive besides (default: none and 2,000). Side by side in one
# hyperfine run per count; prints a markdown table.
# Usage: bench/free.sh [COUNTS...]
set -euo pipefail
cd "$(dirname "$0")/.."
counts=("${@:-0 2000}")
read -r -a counts <<<"${counts[*]}"
runs=${RUNS:-40}

need_tools="hyperfine:hyperfine ss:iproute2 fuser:psmisc"
# shellcheck source=bench/lib-ports.sh
. bench/lib-ports.sh
# The port of the listeners that each run ends (lib-ports.sh's tethered
# listener holds $port): below the ephemeral range and used by no socket
# at either end, since fuser -k -n tcp P kills a client whose local port
# is P as well.
read -r low _ </proc/sys/net/ipv4/ip_local_port_range
while :; do
	fport=$((20000 + RANDOM % (low - 20000)))
	[ "$fport" != "$port" ] && [ -z "$(ss -Htuan "( sport = :$fport or dport = :$fport )")" ] && break
done
# Each listener started here, "PID START" (START: its start time, field 22
# of /proc/PID/stat), so that at the end only those still alive with the
# same start time are ended: a PID recycled meanwhile is never signalled.
: >"$work/started"
end_started() {
	local pid st s
	while read -r pid st; do
		s=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
		s=${s##*) }
		read -r -a f <<<"$s"
		[ "${f[19]}" = "$st" ] && kill -KILL "$pid" 2>/dev/null
	done <"$work/started"
}
trap 'end_started; cleanup' EXIT

# start.sh, hyperfine's --prepare: waits until nothing listens on the
# port, starts a listener in a session of its own (setsid -f: it outlives
# this shell), notes it, and returns once that listener, and no other,
# holds the port; otherwise it fails, and so does the benchmark, before
# anything is signalled.
cat >"$work/start.sh" <<START
set -u
listening() { [ -n "\$(ss -Hltn sport = :$fport)" ]; }
ours() { [ "\$(ss -Hltnp sport = :$fport | grep -o 'pid=[0-9]*' | sort -u)" = "pid=\$1" ]; }
for _ in \$(seq 500); do listening || break; sleep 0.01; done
for try in 1 2 3 4 5; do
	rm -f "$work/pid"
	setsid -f /bin/sh -c 'echo \$\$ > "$work/pid"; exec "$work/listener" $fport' </dev/null >/dev/null 2>&1
	for _ in \$(seq 500); do [ -s "$work/pid" ] && break; sleep 0.002; done
	pid=\$(cat "$work/pid")
	for _ in \$(seq 1000); do
		s=\$(cat /proc/\$pid/stat 2>/dev/null) || break
		ours "\$pid" && { s=\${s##*) }; set -- \$s; echo "\$pid \${20}" >>"$work/started"; exit 0; }
		sleep 0.002
	done
done
echo "no listener on $fport" >&2
exit 1
START

echo "## Freeing a port: one listener that exits on TERM"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $(uname -sr); mean ± σ of $runs runs each, in ms"
echo
echo "| processes | tether reclaim --foreign --port | fuser -k -n tcp | tether / fuser |"
echo "|---:|---:|---:|---:|"
for n in "${counts[@]}"; do
	grow_idle "$n"
	total=$(ls -d /proc/[0-9]* | wc -l)
	hyperfine -N --warmup 3 --runs "$runs" --prepare "bash $work/start.sh" --export-json "$work/$n.json" \
		"$work/tether reclaim --foreign --port $fport" \
		"fuser -k -n tcp $fport" >/dev/null 2>&1
	python3 - "$work/$n.json" "$total" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
m = [x["mean"] * 1000 for x in r]
s = [x["stddev"] * 1000 for x in r]
print(f"| {int(sys.argv[2]):,} | {m[0]:.1f} ± {s[0]:.1f} | {m[1]:.1f} ± {s[1]:.1f} | {m[0]/m[1]:.2f} |")
PY
done
