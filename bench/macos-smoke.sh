#!/bin/sh
# A smoke test of tether on a Mac, of what only a Mac can settle (it runs
# on Linux too, where the Mac-only parts say they are skipped):
#
#   - which programs' environments the kernel withholds (a CS_RESTRICT
#     program, read by another while System Integrity Protection is on):
#     Apple's /usr/bin/nc, /bin/sleep, the shells, perl, python3, and a
#     program built here;
#   - the port lookup through libproc (compared with lsof), a listener
#     under tether run, tether killed with SIGKILL, the port freed by the
#     watchdog (whose first stage is /bin/sh: bash, zsh or dash, as
#     /private/var/select/sh says), else by tether reclaim;
#   - tether doctor, and as root too when sudo needs no password;
#   - the signals tether's caller blocked and ignored, as the command
#     finds them, and a blocked one not forwarded (XNU keeps the blocked
#     set per thread, read through libSystem's pthread_sigmask), with
#     that call's own test when Go and the source are there;
#   - an Intel build under Rosetta, on Apple silicon where Rosetta is
#     installed.
#
# It ends with a short report to paste into an issue, and exits 1 when a
# check failed. It signals only the processes it starts.
#
#   go build -tags urfave_cli_no_docs -o tether . && sh bench/macos-smoke.sh
#
# TETHER names the binary (default ./tether); TETHER_AMD64 an Intel build
# for Rosetta (default: built here with go, from the repository's root);
# PORT the first of the three ports it uses (default 38765); LISTENER a
# command that listens on the port given as its last argument (default:
# python3 -m http.server, else a Go listener built here, else perl).
#
# To try the watchdog under zsh as /bin/sh, point /private/var/select/sh
# at /bin/zsh (sudo ln -sf /bin/zsh /private/var/select/sh), run this
# again, and point it back at /bin/bash. This script changes nothing of
# the system's.
set -u
tether=${TETHER:-./tether}
port=${PORT:-38765}
port2=$((port + 1))
port3=$((port + 2))
mark=smoke-env-$$
os=$(uname -s)
work=$(mktemp -d "${TMPDIR:-/tmp}/tether-smoke.XXXXXX") || exit 1
report=
failed=0
started=

note() {
	report="$report$*
"
}

fail() {
	failed=1
	note "FAIL: $*"
	echo "FAIL: $*"
}

# kill_ours signals a process this script started, only while it is still
# this script's child (never a PID recycled since).
kill_ours() {
	if [ "$(ps -o ppid= -p "$1" 2>/dev/null | tr -d ' ')" = "$$" ]; then
		kill "${2:--TERM}" "$1" 2>/dev/null
	fi
}

# shellcheck disable=SC2317 # run by the trap
cleanup() {
	for p in $started; do
		kill_ours "$p"
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! [ -x "$tether" ]; then
	echo "no tether at $tether: build it first (see the top of this script), or set TETHER" >&2
	exit 1
fi

# cs_flags prints a binary's code signing flags, " [flags=0x...(...)]".
cs_flags() {
	[ "$os" = Darwin ] && [ -n "$1" ] && command -v codesign >/dev/null 2>&1 || return 0
	f=$(codesign -d --verbose=1 "$1" 2>&1 | sed -n 's/.*flags=\([^ ]*\).*/\1/p' | head -n 1)
	[ -n "$f" ] && printf ' [flags=%s]' "$f"
}

echo "== this machine"
if [ "$os" = Darwin ]; then
	ver="macOS $(sw_vers -productVersion 2>/dev/null) ($(sw_vers -buildVersion 2>/dev/null))"
	translated=$(sysctl -n sysctl.proc_translated 2>/dev/null)
	[ "$translated" = 1 ] && ver="$ver, this shell under Rosetta"
	sip=$(csrutil status 2>/dev/null | sed -n 's/^System Integrity Protection status: *//p' | head -n 1)
	dtrace=$(csrutil status 2>/dev/null | sed -n 's/^ *DTrace Restrictions: *//p' | head -n 1)
	[ -n "$dtrace" ] && sip="$sip (DTrace restrictions $dtrace)"
	binsh=$(readlink /private/var/select/sh 2>/dev/null || echo "unknown")
else
	ver="$(uname -sr) (not a Mac: the Mac-only checks are skipped)"
	sip="n/a"
	binsh=$(readlink -f /bin/sh 2>/dev/null || echo /bin/sh)
fi
note "machine: $ver, $(uname -m); SIP: ${sip:-unknown}; /bin/sh runs $binsh"
note "tether: $("$tether" --version 2>&1 | head -n 1) ($(file -b "$tether" 2>/dev/null | cut -d, -f1))"
printf '%s' "$report"

echo "== tether doctor"
if "$tether" doctor >"$work/doctor" 2>&1; then
	note "doctor: exit 0"
else
	note "doctor: exit $?"
fi
cat "$work/doctor"
if [ "$(id -u)" = 0 ]; then
	note "doctor as root: this run is root's"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	echo "== sudo -n tether doctor"
	# shellcheck disable=SC2024 # the report is the user's file
	sudo -n "$tether" doctor >"$work/doctor-root" 2>&1
	note "doctor as root: exit $?"
	cat "$work/doctor-root"
	# The environment of other users' processes and of restricted ones.
	grep -i "other users" "$work/doctor-root" | sed 's/^/  root: /' >>"$work/doctor-lines"
else
	note "doctor as root: skipped (sudo needs a password; run sudo -v first to include it)"
fi
grep -i -e "other users" -e "your processes" -e lsof "$work/doctor" | sed 's/^/  /' >>"$work/doctor-lines"
[ -s "$work/doctor-lines" ] && note "$(cat "$work/doctor-lines")"

# env_check LABEL COMMAND... starts COMMAND with forged markers and asks
# tether check whether its environment can be read: readable (0) or
# withheld (4, unverifiable).
env_check() {
	label=$1
	shift
	if ! command -v "$1" >/dev/null 2>&1; then
		note "env of $label: skipped (no $1)"
		return
	fi
	env TETHER=1 TETHER_NAME="$mark" "$@" </dev/null >/dev/null 2>&1 &
	pid=$!
	started="$started $pid"
	# Until env has executed COMMAND.
	i=0
	while [ "$(ps -o comm= -p "$pid" 2>/dev/null | sed 's,.*/,,')" = env ] && [ "$i" -lt 30 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.2
	exe=$(ps -o comm= -p "$pid" 2>/dev/null)
	"$tether" check --name "$mark" "$pid" >"$work/check" 2>&1
	case $? in
	0) verdict=readable ;;
	4) verdict="withheld ($(sed -n 's/^[0-9]* unverifiable: *//p' "$work/check" | cut -c1-60))" ;;
	3) verdict="gone before it was read (it exited: $(head -n 1 "$work/check" | cut -c1-80))" ;;
	*) verdict="unexpected: $(head -n 1 "$work/check" | cut -c1-100)" ;;
	esac
	note "env of $label: $verdict; ran ${exe:-?}$(cs_flags "$exe")"
	kill_ours "$pid"
	wait "$pid" 2>/dev/null
}

# python3 only where it is not Apple's stub without the command line
# tools (which would open an installer dialog).
python=
if command -v python3 >/dev/null 2>&1; then
	python=$(command -v python3)
	if [ "$os" = Darwin ] && [ "$python" = /usr/bin/python3 ] && ! xcode-select -p >/dev/null 2>&1; then
		python=
	fi
fi

echo "== whose environment can be read"
env_check "/bin/sleep" /bin/sleep 30
env_check "/usr/bin/nc" /usr/bin/nc -l 127.0.0.1 "$port2"
env_check "/bin/sh" /bin/sh -c 'sleep 30; :'
env_check "/bin/zsh" /bin/zsh -c 'sleep 30; :'
env_check "/usr/bin/perl" /usr/bin/perl -e 'sleep 30'
env_check "/usr/bin/tail" /usr/bin/tail -f /dev/null
if [ -n "$python" ]; then
	env_check "python3 ($python)" "$python" -c 'import time; time.sleep(30)'
else
	note "env of python3: skipped (none, or Apple's stub without the command line tools)"
fi
env_check "tether (built here)" "$tether" wait --port "$port3" --timeout 30s

# The listener for the rest: one whose environment is not withheld.
if [ -n "${LISTENER:-}" ]; then
	# shellcheck disable=SC2086 # LISTENER is a command line, split on purpose
	set -- $LISTENER
	lname="LISTENER ($LISTENER)"
elif [ -n "$python" ]; then
	set -- "$python" -m http.server --bind 127.0.0.1
	lname="python3 -m http.server"
elif command -v go >/dev/null 2>&1 && [ -f bench/testdata/listener/main.go ] && go build -o "$work/listener" ./bench/testdata/listener 2>/dev/null; then
	set -- "$work/listener"
	lname="bench/testdata/listener (Go)"
else
	cat >"$work/listen.pl" <<'EOF'
use IO::Socket::INET;
my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $ARGV[0], Proto => "tcp", Listen => 5, ReuseAddr => 1) or die "listen: $!";
sleep 600;
EOF
	set -- /usr/bin/perl "$work/listen.pl"
	lname="perl"
fi
note "listener: $lname"

lsof=/usr/sbin/lsof
[ -x "$lsof" ] || lsof=$(command -v lsof 2>/dev/null)
via=
[ "$os" = Darwin ] && via=", through libproc"

# run_case LABEL PORT [arch -x86_64] TETHER: a listener under tether
# run, found by its port, tether killed with SIGKILL, the port freed.
run_case() {
	label=$1
	p=$2
	shift 2
	tbin=$1
	prefix=
	if [ "$tbin" = arch ]; then
		prefix="arch -x86_64"
		tbin=$3
	fi
	name=smoke-$$-$p
	echo "== $label: a listener on $p under tether run"
	# shellcheck disable=SC2086 # prefix is a command, split on purpose
	$prefix "$tbin" run --name "$name" -- "$lcmd" $largs "$p" </dev/null >/dev/null 2>"$work/run-$p" &
	tpid=$!
	started="$started $tpid"
	if ! "$tether" wait --port "$p" --timeout 15s >/dev/null 2>&1; then
		fail "$label: no listener on port $p after 15 s ($(head -n 2 "$work/run-$p" | tr '\n' ' ' | cut -c1-200))"
		kill_ours "$tpid"
		return
	fi
	# shellcheck disable=SC2086
	$prefix "$tbin" ps --name "$name" --port "$p" >"$work/ps-$p" 2>&1
	cat "$work/ps-$p"
	if grep -q "$name" "$work/ps-$p"; then
		note "$label: port $p found held by the run (ps --port$via)"
	else
		fail "$label: ps --port $p does not show the run"
	fi
	# The holder as tether's dry run names it, beside lsof's.
	# shellcheck disable=SC2086
	$prefix "$tbin" reclaim --dry-run --all --name "$name" --port "$p" >"$work/dry-$p" 2>&1
	cat "$work/dry-$p"
	held=$(sed -n 's/^port [0-9]*: held by \([0-9][0-9, ]*\).*/\1/p' "$work/dry-$p" | head -n 1)
	lpid=
	if [ -n "$lsof" ]; then
		lpid=$("$lsof" -b -w -nP -t -iTCP:"$p" -sTCP:LISTEN 2>/dev/null | tr '\n' ' ' | sed 's/ *$//')
	fi
	if [ -z "$lsof" ]; then
		note "$label: tether says port $p is held by ${held:-nothing} (no lsof to compare)"
	elif [ "$held" = "$lpid" ]; then
		note "$label: tether and lsof agree: port $p is held by $held"
	else
		fail "$label: tether says port $p is held by '${held}', lsof by '${lpid}'"
	fi
	echo "== $label: SIGKILL to tether ($tpid)"
	kill -KILL "$tpid"
	wait "$tpid" 2>/dev/null
	if "$tether" wait --free --port "$p" --timeout 10s >/dev/null 2>&1; then
		note "$label: PASS, tether killed with SIGKILL, the watchdog freed port $p"
		return
	fi
	note "$label: the watchdog left port $p held within 10 s"
	# shellcheck disable=SC2086
	$prefix "$tbin" ps --name "$name" --port "$p"
	echo "== $label: tether reclaim --port $p"
	# shellcheck disable=SC2086
	$prefix "$tbin" reclaim --name "$name" --port "$p" --grace 2s
	st=$?
	if "$tether" wait --free --port "$p" --timeout 5s >/dev/null 2>&1; then
		note "$label: PASS after tether reclaim (exit $st): port $p free"
	else
		fail "$label: port $p still held after tether reclaim (exit $st)"
	fi
}

lcmd=$1
shift
largs=$*
run_case "native" "$port" "$tether"

# A port held by Apple's nc, a program tether did not start: found by
# the socket (libproc reads the descriptors of any process of the same
# user, restricted or not, unless a policy of macOS refuses), as a
# dry run of reclaim --foreign shows.
if [ -x /usr/bin/nc ]; then
	echo "== a port held by /usr/bin/nc, not started by tether"
	/usr/bin/nc -l 127.0.0.1 "$port2" </dev/null >/dev/null 2>&1 &
	ncpid=$!
	started="$started $ncpid"
	if "$tether" wait --port "$port2" --timeout 5s >/dev/null 2>&1; then
		"$tether" reclaim --dry-run --foreign --port "$port2" >"$work/dry-nc" 2>&1
		cat "$work/dry-nc"
		held=$(sed -n 's/^port [0-9]*: held by \([0-9][0-9, ]*\).*/\1/p' "$work/dry-nc" | head -n 1)
		if [ "$held" = "$ncpid" ]; then
			note "nc's port: found held by nc ($ncpid) through the socket$via"
		else
			fail "nc's port $port2: tether names '${held}', nc is $ncpid"
		fi
	else
		note "nc's port: skipped (nc did not listen on $port2 within 5 s)"
	fi
	kill_ours "$ncpid"
	wait "$ncpid" 2>/dev/null
fi

# The signals tether's caller left it: the parent blocks USR1 and TTIN
# and ignores TTOU, then execs tether; the command reports what it finds,
# and, after tether was sent a USR1 (blocked, so not to be forwarded),
# whether one is pending in it.
echo "== blocked and ignored signals"
if command -v perl >/dev/null 2>&1; then
	cat >"$work/sigs.pl" <<'EOF'
use POSIX;
if (@ARGV && $ARGV[0] eq "report") {
	$| = 1;
	my $b = POSIX::SigSet->new;
	sigprocmask(SIG_BLOCK, POSIX::SigSet->new, $b);
	my $ign = defined $SIG{TTOU} && $SIG{TTOU} eq "IGNORE";
	printf "blocked:%s%s ignored:%s\n", ($b->ismember(SIGUSR1) ? " USR1" : ""),
		($b->ismember(SIGTTIN) ? " TTIN" : ""), ($ign ? " TTOU" : "");
	sleep 2;
	my $p = POSIX::SigSet->new;
	sigpending($p);
	printf "pending:%s\n", ($p->ismember(SIGUSR1) ? " USR1" : "");
	exit 0;
}
sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGUSR1, SIGTTIN)) or die "sigprocmask: $!";
$SIG{TTOU} = "IGNORE";
exec @ARGV or die "exec: $!";
EOF
	perl "$work/sigs.pl" "$tether" run -- perl "$work/sigs.pl" report </dev/null >"$work/sigs" 2>&1 &
	spid=$!
	started="$started $spid"
	sleep 1
	kill_ours "$spid" -USR1
	wait "$spid"
	st=$?
	cat "$work/sigs"
	got=$(tr '\n' ' ' <"$work/sigs" | sed 's/ *$//')
	if [ "$st" = 0 ] && [ "$got" = "blocked: USR1 TTIN ignored: TTOU pending:" ]; then
		note "signals: PASS, the command found USR1 TTIN blocked and TTOU ignored; a USR1 to tether was not forwarded"
	else
		fail "signals: exit $st, the command said '$got'; want 'blocked: USR1 TTIN ignored: TTOU pending:'"
	fi
else
	note "signals: skipped (no perl)"
fi
if [ "$os" = Darwin ] && command -v go >/dev/null 2>&1 && [ -f go.mod ] && [ -f internal/sigstate/sigmask_darwin_test.go ]; then
	echo "== pthread_sigmask through libSystem (go test)"
	if go test -count=1 -run 'TestThreadSigmask' ./internal/sigstate/ >"$work/sigmask" 2>&1; then
		note "pthread_sigmask ($(uname -m)): PASS"
	else
		fail "pthread_sigmask ($(uname -m)): $(tail -n 3 "$work/sigmask" | tr '\n' ' ' | cut -c1-200)"
	fi
	if [ "$(uname -m)" = arm64 ] && arch -x86_64 /usr/bin/true 2>/dev/null; then
		if GOARCH=amd64 go test -count=1 -run 'TestThreadSigmask' ./internal/sigstate/ >"$work/sigmask-amd64" 2>&1; then
			note "pthread_sigmask (amd64 under Rosetta): PASS"
		else
			fail "pthread_sigmask (amd64 under Rosetta): $(tail -n 3 "$work/sigmask-amd64" | tr '\n' ' ' | cut -c1-200)"
		fi
	fi
else
	note "pthread_sigmask test: skipped (not a Mac, or no Go and source here)"
fi

# Rosetta: an Intel build on Apple silicon.
if [ "$os" != Darwin ]; then
	note "Rosetta: skipped (not a Mac)"
elif [ "$(uname -m)" != arm64 ]; then
	note "Rosetta: skipped (an Intel Mac, or this shell already translated)"
elif ! arch -x86_64 /usr/bin/true 2>/dev/null; then
	note "Rosetta: skipped (not installed: softwareupdate --install-rosetta)"
else
	amd64=${TETHER_AMD64:-}
	if [ -z "$amd64" ] && command -v go >/dev/null 2>&1 && [ -f go.mod ]; then
		amd64=$work/tether-amd64
		GOOS=darwin GOARCH=amd64 go build -tags urfave_cli_no_docs -o "$amd64" . || amd64=
	fi
	if [ -z "$amd64" ]; then
		note "Rosetta: skipped (no Intel build: set TETHER_AMD64, or run from the repository with go)"
	else
		note "Rosetta: $(arch -x86_64 "$amd64" --version 2>&1 | head -n 1) ($(file -b "$amd64" | cut -d, -f1))"
		arch -x86_64 "$amd64" doctor >"$work/doctor-amd64" 2>&1
		note "Rosetta doctor: exit $?"
		grep -i "your processes" "$work/doctor-amd64" | sed 's/^/  /' >"$work/doctor-amd64-lines"
		[ -s "$work/doctor-amd64-lines" ] && note "$(cat "$work/doctor-amd64-lines")"
		run_case "Rosetta" "$port3" arch -x86_64 "$amd64"
	fi
fi

echo
echo "---- paste from here into an issue ----"
printf '%s' "$report"
if [ "$failed" = 0 ]; then
	echo "result: PASS"
else
	echo "result: FAIL"
fi
echo "---- to here ----"
exit "$failed"
