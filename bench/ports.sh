#!/usr/bin/env bash
# Benchmarks finding the holder of one TCP port with 500 to 4,000 idle
# processes alive: tether reclaim --dry-run --port against ss -ltnp,
# fuser and lsof, side by side in one hyperfine run per size. Prints a
# markdown table. Usage: bench/ports.sh [SIZES...]
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-500 1000 2000 4000}")
read -r -a sizes <<<"${sizes[*]}"

need_tools="hyperfine:hyperfine ss:iproute2 fuser:psmisc lsof:lsof"
# shellcheck source=bench/lib-ports.sh
. bench/lib-ports.sh

echo "## Finding the holder of one TCP port"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $(uname -sr); mean of 10 runs each, in ms"
echo
echo "| processes | tether reclaim --dry-run --port | ss -ltnp | fuser -n tcp | lsof -ti | tether / ss |"
echo "|---:|---:|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
	grow_idle "$n"
	total=$(ls -d /proc/[0-9]* | wc -l)
	hyperfine -N -i --warmup 2 --runs 10 --export-json "$work/$n.json" \
		"$work/tether reclaim --dry-run --port $port" \
		"ss -ltnp sport = :$port" \
		"fuser -n tcp $port" \
		"lsof -ti :$port" >/dev/null 2>&1
	python3 - "$work/$n.json" "$total" <<'PY'
import json, sys
r = [x["mean"] * 1000 for x in json.load(open(sys.argv[1]))["results"]]
print(f"| {sys.argv[2]} | {r[0]:.1f} | {r[1]:.1f} | {r[2]:.1f} | {r[3]:.1f} | {r[0]/r[1]:.2f} |")
PY
done
