#!/usr/bin/env bash
# The costs that must not grow with the machine, each against what it is
# held to, in one run, as one markdown table (docs/performance.md):
#
#   - BenchmarkHostStartStop100 (spawn.Host and its watchdog) against
#     exec.Command, Kill and Wait, with the machine as it is, with 4,000
#     idle processes more, and with 4,000 that are the children of one of
#     the benchmark's ancestors (orphans of a shell, re-parented to init
#     or to the nearest subreaper): the lists a Stop reads;
#   - BenchmarkHostClose100 (100 children that ignore TERM, 0.5 s of
#     grace) against the grace;
#   - tether run and tether run --exec against the start-up floors
#     (bench/testdata/floor/sup and bench/testdata/floor/exec; and
#     bench/testdata/floor/supwd, sup with a stand-in watchdog started
#     before the command, what tether run is held to), in one hyperfine
#     run, then again in rounds of one run each (bench/testdata/interleave);
#   - reclaim --dry-run --foreign --port among 2,000 processes against
#     ss -ltnp.
#
# The idle processes of the second row are children of a shell of their
# own, none of the benchmark's ancestors. Installs hyperfine and ss with apt-get where
# missing. Usage: bench/costs.sh; RUNS sets hyperfine's runs (300),
# ROUNDS the interleaved runs' rounds (300), BENCHTIME the Go
# benchmarks' (5x).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-300}
rounds=${ROUNDS:-300}
benchtime=${BENCHTIME:-5x}

need_tools="hyperfine:hyperfine ss:iproute2"
# shellcheck source=bench/lib-ports.sh
. bench/lib-ports.sh

go build -tags urfave_cli_no_docs -o "$work/f-sup" ./bench/testdata/floor/sup
go build -tags urfave_cli_no_docs -o "$work/f-supwd" ./bench/testdata/floor/supwd
go build -tags urfave_cli_no_docs -o "$work/f-exec" ./bench/testdata/floor/exec
go test -c -o "$work/spawn.test" ./spawn/
go build -o "$work/interleave" ./bench/testdata/interleave

# others N: keeps N idle processes alive as children of a shell that is
# none of the benchmark's ancestors; their PIDs go to $work/others.
others=
others() {
	: >"$work/others"
	(
		for _ in $(seq "$1"); do
			sleep 100000 &
			echo $! >>"$work/others"
		done
		wait
	) &
	others=$!
	while [ "$(wc -l <"$work/others")" -lt "$1" ]; do sleep 0.1; done
}
stop_others() {
	# Only what others started: the sleeps, then their shell.
	[ -s "$work/others" ] && xargs kill <"$work/others" 2>/dev/null
	[ -n "$others" ] && kill "$others" 2>/dev/null
	wait "$others" 2>/dev/null || true
	rm -f "$work/others"
	others=
}
# orphans N: keeps N idle processes alive whose shell has exited: they
# are re-parented up the benchmark's own line (to init, or to the
# nearest subreaper). Their PIDs go to $work/orphans.
orphans() {
	: >"$work/orphans"
	(for _ in $(seq "$1"); do
		sleep 100000 </dev/null >/dev/null 2>&1 &
		echo $! >>"$work/orphans"
	done)
}
stop_orphans() {
	# Only what orphans started.
	[ -s "$work/orphans" ] && xargs kill <"$work/orphans" 2>/dev/null
	rm -f "$work/orphans"
}
trap 'stop_others; stop_orphans; cleanup' EXIT

count() { ls -d /proc/[0-9]* | wc -l; }

# gobench NAME...: the median ns/op of each named benchmark, in ms, one
# per line, as "name ms".
gobench() {
	"$work/spawn.test" -test.run '^$' -test.bench "$1" -test.benchtime "$benchtime" -test.count "${COUNT:-5}" 2>&1 |
		awk '/^Benchmark/ { sub(/-[0-9]+$/, "", $1); print $1, $3 / 1e6 }' |
		sort -k1,1 -k2,2n | awk '
			{ v[$1] = v[$1] " " $2; n[$1]++ }
			END { for (k in v) { split(substr(v[k], 2), a, " "); printf "%s %.1f\n", k, a[int((n[k] + 1) / 2)] } }'
}

# vsfloor: BenchmarkHostVsFloor (a floor child and a Host child in
# turn), the medians of its floor and Host ms per 100 and of its ratio,
# as "floor host ratio".
vsfloor() {
	"$work/spawn.test" -test.run '^$' -test.bench 'HostVsFloor$' -test.benchtime "$benchtime" -test.count "${COUNT:-5}" 2>&1 |
		awk '/^BenchmarkHostVsFloor/ { for (i = 1; i < NF; i++) { if ($(i+1) == "floor-ms/100") f = f " " $i; if ($(i+1) == "host-ms/100") h = h " " $i; if ($(i+1) == "host/floor") r = r " " $i } }
			function med(s,   a, n, i, j, t) {
				n = split(substr(s, 2), a, " ")
				for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
				return a[int((n + 1) / 2)]
			}
			END { print med(f), med(h), med(r) }'
}

row() { printf '| %s | %s | %s | %s | %s |\n' "$@"; }
ratio() { python3 -c "print(f'{$1/$2:.2f}×')"; }

echo "## Costs that must not grow with the machine"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $(uname -sr), $(go version | cut -d' ' -f3); medians"
echo
echo "| what | processes | tether | against | × |"
echo "|---|---:|---:|---:|---:|"

host_rows() {
	local n=$1 res exec host wd
	res=$(gobench 'HostStartStop100$')
	exec=$(awk '$1 ~ /\/exec$/ {print $2}' <<<"$res")
	host=$(awk '$1 ~ /\/host$/ {print $2}' <<<"$res")
	wd=$(awk '$1 ~ /\/host\+watchdog$/ {print $2}' <<<"$res")
	row "100 children started and stopped: Host (exec.Command+Kill+Wait)" "$n" "$host ms" "$exec ms" "$(ratio "$host" "$exec")"
	row "… Host with its watchdog" "$n" "$wd ms" "$exec ms" "$(ratio "$wd" "$exec")"
	read -r floor host x <<<"$(vsfloor)"
	row "100 children: Host against its floor, a child of each in turn (BenchmarkHostVsFloor)" "$n" "$host ms" "$floor ms" "${x}×"
}

n=$(count)
host_rows "$n"
close=$(gobench 'HostClose100$' | awk '{print $2}')
row "Host.Close of 100 children that ignore TERM (grace 0.5 s)" "$n" "$close ms" "500 ms" "$(ratio "$close" 500)"

hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/start.json" \
	-n run "$work/tether run -- /bin/true" -n sup "$work/f-sup run -- /bin/true" \
	-n supwd "$work/f-supwd run -- /bin/true" \
	-n exec "$work/tether run --exec -- /bin/true" -n f-exec "$work/f-exec run --exec -- /bin/true" \
	>/dev/null 2>"$work/hyperfine.err" || { cat "$work/hyperfine.err" >&2; exit 1; }
python3 - "$work/start.json" "$n" <<'PY'
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) * 1000 for x in json.load(open(sys.argv[1]))["results"]}
n = sys.argv[2]
print(f"| `tether run -- /bin/true` (the floor: fork with a parent-death signal, wait) | {n} | {r['run']:.2f} ms | {r['sup']:.2f} ms | {r['run']/r['sup']:.2f}× |")
print(f"| `tether run -- /bin/true` (the floor: the same with a stand-in watchdog first) | {n} | {r['run']:.2f} ms | {r['supwd']:.2f} ms | {r['run']/r['supwd']:.2f}× |")
print(f"| `tether run --exec -- /bin/true` (the floor: arm the signal, exec) | {n} | {r['exec']:.2f} ms | {r['f-exec']:.2f} ms | {r['exec']/r['f-exec']:.2f}× |")
PY
# The same, in rounds of one run each (bench/testdata/interleave): where
# the machine's speed drifts, hyperfine's runs of one command after the
# other meet it at different moments.
for pair in "run|$work/tether run -- /bin/true|$work/f-sup run -- /bin/true" \
	"run (watchdog floor)|$work/tether run -- /bin/true|$work/f-supwd run -- /bin/true" \
	"run --exec|$work/tether run --exec -- /bin/true|$work/f-exec run --exec -- /bin/true"; do
	IFS='|' read -r what cmd floor <<<"$pair"
	"$work/interleave" "$rounds" "$cmd" "$floor" | awk -F'\t' -v what="$what" -v n="$n" '
		NR == 1 { t = $1; x = $2 } NR == 2 { f = $1 }
		END { printf "| `tether %s -- /bin/true`, in rounds with its floor | %s | %.2f ms | %.2f ms | %.2f× |\n", what, n, t, f, x }'
done

others $((2000 - $(count)))
n=$(count)
hyperfine -N -i --warmup 3 --runs "${PORT_RUNS:-30}" --export-json "$work/port.json" \
	-n reclaim "$work/tether reclaim --dry-run --foreign --port $port" \
	-n ss "ss -ltnp sport = :$port" >/dev/null 2>&1
python3 - "$work/port.json" "$n" <<'PY'
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) * 1000 for x in json.load(open(sys.argv[1]))["results"]}
print(f"| `reclaim --dry-run --foreign --port P` (`ss -ltnp sport = :P`) | {int(sys.argv[2]):,} | {r['reclaim']:.1f} ms | {r['ss']:.1f} ms | {r['reclaim']/r['ss']:.2f}× |")
PY

stop_others
others 4000
host_rows "$(count)"
stop_others

orphans 4000
sleep 1
n=$(count)
res=$(gobench 'HostStartStop100$')
exec=$(awk '$1 ~ /\/exec$/ {print $2}' <<<"$res")
host=$(awk '$1 ~ /\/host$/ {print $2}' <<<"$res")
row "… Host, 4,000 of them children of the benchmark's ancestors" "$n" "$host ms" "$exec ms" "$(ratio "$host" "$exec")"
read -r floor host x <<<"$(vsfloor)"
row "… Host against its floor in turn, 4,000 children of the benchmark's ancestors" "$n" "$host ms" "$floor ms" "${x}×"
stop_orphans
