#!/usr/bin/env bash
# Benchmarks finding the holder of one TCP port with 500 to 4,000 idle
# processes alive: tether reclaim --dry-run --port (and with --foreign)
# against ss -ltnp, fuser and lsof (every socket on the port, and its
# listeners only), side by side in one hyperfine run per size. Prints a
# markdown table. Usage: bench/ports.sh [SIZES...]
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-500 1000 2000 4000}")
read -r -a sizes <<<"${sizes[*]}"
runs=${RUNS:-20}

need_tools="hyperfine:hyperfine ss:iproute2 fuser:psmisc lsof:lsof"
# shellcheck source=bench/lib-ports.sh
. bench/lib-ports.sh

echo "## Finding the holder of one TCP port"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $(uname -sr); mean of $runs runs each, in ms"
echo
echo "| processes | tether reclaim --dry-run --port | … --foreign | ss -ltnp | fuser -n tcp | lsof -ti | lsof -ti -sTCP:LISTEN | tether / ss | --foreign / ss |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
	grow_idle "$n"
	total=$(ls -d /proc/[0-9]* | wc -l)
	# -i: the dry runs exit 1, the port being held by a run whose tether
	# is alive, which neither ends.
	hyperfine -N -i --warmup 2 --runs "$runs" --export-json "$work/$n.json" \
		"$work/tether reclaim --dry-run --port $port" \
		"$work/tether reclaim --dry-run --foreign --port $port" \
		"ss -ltnp sport = :$port" \
		"fuser -n tcp $port" \
		"lsof -ti :$port" \
		"lsof -ti tcp:$port -sTCP:LISTEN" >/dev/null 2>&1
	python3 - "$work/$n.json" "$total" <<'PY'
import json, sys
r = [x["mean"] * 1000 for x in json.load(open(sys.argv[1]))["results"]]
cells = " | ".join(f"{x:.1f}" for x in r)
print(f"| {int(sys.argv[2]):,} | {cells} | {r[0]/r[2]:.2f} | {r[1]/r[2]:.2f} |")
PY
done
