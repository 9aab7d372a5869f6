#!/usr/bin/env bash
# Benchmarks one poll of tether wait with 2,000 idle processes alive
# (or the counts given): tether wait --timeout 0 on a port nothing serves
# yet (one check, exit 1: what each poll costs), and on a port served
# (one check, and the holder described), against ss -ltn for the same
# port, side by side in one hyperfine run. Usage: bench/wait.sh [SIZES...]
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-2000}")
read -r -a sizes <<<"${sizes[*]}"

need_tools="hyperfine:hyperfine ss:iproute2"
# shellcheck source=bench/lib-ports.sh
. bench/lib-ports.sh
free=$((port + 1))

echo "## One poll of tether wait"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $(uname -sr); mean of 20 runs each, in ms"
echo
echo "| processes | tether wait, port not served | ss -ltn | tether / ss | tether wait, port served (holder described) |"
echo "|---:|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
	grow_idle "$n"
	total=$(ls -d /proc/[0-9]* | wc -l)
	hyperfine -N -i --warmup 3 --runs 20 --export-json "$work/$n.json" \
		"$work/tether wait --timeout 0 --port $free" \
		"ss -ltn sport = :$free" \
		"$work/tether wait --timeout 0 --port $port" >/dev/null 2>&1
	python3 - "$work/$n.json" "$total" <<'PY'
import json, sys
r = [x["mean"] * 1000 for x in json.load(open(sys.argv[1]))["results"]]
print(f"| {sys.argv[2]} | {r[0]:.1f} | {r[1]:.1f} | {r[0]/r[1]:.2f} | {r[2]:.1f} |")
PY
done
