#!/usr/bin/env bash
# Every benchmark of tether against its peers, as markdown: the costs held
# to a bound (costs.sh), run and --exec
# overhead and memory (run.sh), port lookup (ports.sh), one poll of tether
# wait (wait.sh), and the time from
# SIGKILL of tether run to the death of its tree (killlatency). Installs
# the peers it needs with apt-get. Usage: bench/all.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash bench/costs.sh
echo
bash bench/run.sh 300
echo
bash bench/ports.sh 500 1000 2000 4000
echo
bash bench/wait.sh 2000
echo
bash bench/free.sh
echo
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -tags urfave_cli_no_docs -o "$work/tether" .
go build -o "$work/killlatency" ./bench/testdata/killlatency
echo "## From SIGKILL of tether run to the death of its tree"
echo
"$work/killlatency" -tether "$work/tether" -n "${KILL_TRIALS:-200}"
