#!/bin/sh
# A smoke test of tether on a Mac (it runs on Linux too): a listener under
# tether run, tether killed with SIGKILL, the port found free again, by
# the watchdog or by tether reclaim. It signals only the tether it starts.
#
#   go build -tags urfave_cli_no_docs -o tether . && sh bench/macos-smoke.sh
#
# TETHER names the binary (default ./tether), PORT the port (default 38765).
set -u
tether=${TETHER:-./tether}
port=${PORT:-38765}
name=smoke-$$

echo "== $(uname -sr); tether doctor"
"$tether" doctor

echo "== a listener on $port under tether run"
if command -v nc >/dev/null; then
	set -- nc -l "$port"
else
	set -- perl -MIO::Socket::INET -e 'my $s = IO::Socket::INET->new(LocalPort => $ARGV[0], Proto => "tcp", Listen => 5, ReuseAddr => 1) or die "listen: $!"; sleep 600' "$port"
fi
"$tether" run --name "$name" -- "$@" </dev/null >/dev/null &
tpid=$!
i=0
until "$tether" ps --name "$name" --port "$port" 2>/dev/null | grep -q "$name"; do
	i=$((i + 1))
	if [ "$i" -gt 100 ]; then
		echo "FAIL: no listener on port $port after 10 s"
		kill "$tpid"
		exit 1
	fi
	sleep 0.1
done
"$tether" ps --name "$name" --port "$port"

echo "== SIGKILL to tether ($tpid)"
kill -9 "$tpid"
wait "$tpid" 2>/dev/null
sleep 1
echo "== after the watchdog"
"$tether" ps --name "$name" --port "$port"

echo "== tether reclaim --port $port"
"$tether" reclaim --name "$name" --port "$port" --grace 2s
status=$?
if "$tether" ps --name "$name" --port "$port" | grep -q "$name"; then
	echo "FAIL: port $port still held by the run (reclaim exit $status)"
	exit 1
fi
echo "PASS: port $port free"
