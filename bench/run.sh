#!/usr/bin/env bash
# Benchmarks tether run against its peers, side by side in one hyperfine
# run each, and prints markdown tables. Needs root for apt-get when a peer
# is missing. Usage: bench/run.sh [RUNS]. With TETHER_BASELINE set to
# another build of tether (an earlier commit's), it runs beside this one
# in the same tables.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-300}

need=()
for tool in tini dumb-init catatonit hyperfine setpriv; do
	command -v "$tool" >/dev/null || need+=("$tool")
done
if [ ${#need[@]} -gt 0 ]; then
	pkgs=()
	for tool in "${need[@]}"; do
		case $tool in setpriv) pkgs+=(util-linux) ;; *) pkgs+=("$tool") ;; esac
	done
	apt-get update -qq && apt-get install -y -qq "${pkgs[@]}" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -tags urfave_cli_no_docs -o "$work/tether" .
tether=$work/tether
# The floors: a Go program that does nothing, and one that only links
# urfave/cli (tether's command-line library) and exits.
go build -o "$work/empty" ./bench/testdata/floor/empty
go build -tags urfave_cli_no_docs -o "$work/cli" ./bench/testdata/floor/cli

# table JSON REFERENCE: hyperfine's results as markdown, each mean also as
# a multiple of REFERENCE's, measured in the same run.
table() {
	python3 - "$1" "$2" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
ref = next(r["mean"] for r in results if r["command"] == sys.argv[2])
print(f"| command | mean | σ | × {sys.argv[2]} |")
print("|---|---:|---:|---:|")
for r in results:
    print(f"| {r['command']} | {r['mean']*1000:.2f} ms | {r['stddev']*1000:.2f} ms | {r['mean']/ref:.2f} |")
PY
}

echo "## tether run: start-up and shutdown overhead, \`/bin/true\` as the command"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $(uname -sr), $(go version | cut -d' ' -f3)"
echo
hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/run.json" \
	-n 'bare /bin/true' '/bin/true' \
	-n 'empty Go program' "$work/empty" \
	-n 'Go program linking urfave/cli' "$work/cli" \
	-n 'tini -s' 'tini -s -- /bin/true' \
	-n 'dumb-init' 'dumb-init /bin/true' \
	-n 'catatonit' 'catatonit -- /bin/true' \
	-n 'tether run' "$tether run -- /bin/true" \
	-n 'tether run --outlive-parent' "$tether run --outlive-parent -- /bin/true" \
	${TETHER_BASELINE:+-n 'tether run (baseline)' "$TETHER_BASELINE run -- /bin/true"} >/dev/null 2>"$work/hyperfine.err" ||
	{ cat "$work/hyperfine.err" >&2; exit 1; }
table "$work/run.json" 'tini -s'
echo
echo "## tether run --exec against setpriv --pdeathsig"
echo
hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/exec.json" \
	-n 'bare /bin/true' '/bin/true' \
	-n 'empty Go program' "$work/empty" \
	-n 'Go program linking urfave/cli' "$work/cli" \
	-n 'setpriv --pdeathsig TERM' 'setpriv --pdeathsig TERM -- /bin/true' \
	-n 'tether run --exec' "$tether run --exec -- /bin/true" \
	${TETHER_BASELINE:+-n 'tether run --exec (baseline)' "$TETHER_BASELINE run --exec -- /bin/true"} >/dev/null 2>"$work/hyperfine.err" ||
	{ cat "$work/hyperfine.err" >&2; exit 1; }
table "$work/exec.json" 'setpriv --pdeathsig TERM'
echo

# mem_kib FIELD PID...: the summed FIELD (Rss or Pss) of smaps_rollup.
# Rss counts the pages of a binary shared by two processes twice; Pss
# splits them, so a sum of Pss is what the processes take together.
mem_kib() {
	local field=$1 sum=0 pid kb
	shift
	for pid in "$@"; do
		kb=$(awk -v f="$field:" '$1 == f {print $2}' "/proc/$pid/smaps_rollup")
		sum=$((sum + kb))
	done
	echo "$sum"
}

echo "## Resident memory while the command (\`sleep 30\`) runs"
echo
echo "| supervisor | processes | RSS | PSS |"
echo "|---|---|---|---|"
for peer in tini dumb-init catatonit; do
	case $peer in
		tini) tini -s -- sleep 30 & ;;
		dumb-init) dumb-init sleep 30 & ;;
		catatonit) catatonit -- sleep 30 & ;;
	esac
	pid=$!
	sleep 0.5
	echo "| $peer | 1 | $(mem_kib Rss "$pid") KiB | $(mem_kib Pss "$pid") KiB |"
	kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
done
"$tether" run -- sleep 30 &
pid=$!
sleep 0.5
wd=$(for c in $(cat /proc/$pid/task/*/children); do
	if [ "$(tr '\0' '\n' < /proc/$c/cmdline | head -n1)" = tether-watchdog ]; then echo "$c"; fi
done)
echo "| tether run (supervisor) | 1 | $(mem_kib Rss "$pid") KiB | $(mem_kib Pss "$pid") KiB |"
echo "| tether run (watchdog) | 1 | $(mem_kib Rss $wd) KiB | $(mem_kib Pss $wd) KiB |"
echo "| tether run (together) | 2 | $(mem_kib Rss "$pid" $wd) KiB | $(mem_kib Pss "$pid" $wd) KiB |"
kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
