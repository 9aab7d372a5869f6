#!/usr/bin/env bash
# The cost of a running tether run's tick (every 250 ms it writes its
# tree down) on a busy machine: the CPU time, user and system, of
# `tether run -- sleep SECONDS` (tether, its watchdog and the command)
# while N idle processes run besides. On Linux two builds run side by
# side, round after round: the full path (children lists, subreaper) and
# the portable one (-tags tetherportable: macOS's way, the tree from one
# snapshot of every process at each tick); on macOS the native build,
# which is the portable path. Prints a markdown table: each round's CPU
# time, the median, the share of one core, and the portable path as a
# multiple of the full one.
#
# Usage: bench/tick-cpu.sh [N [SECONDS [ROUNDS]]] (default 600 5 3)
#
# FLAGS adds options to tether run: FLAGS=--outlive-parent leaves the
# caller's chain unfollowed, to measure the tick alone.
# TETHER_BASELINE_SRC names another source tree of tether (an earlier
# commit's, git archive COMMIT | tar -x -C DIR) to build the same ways and
# measure in the same rounds, for a before and after. The idle processes
# are sleeps this script starts, and it ends them by their PIDs alone.
# Written for bash 3.2 too (macOS's /bin/bash).
set -eu
cd "$(dirname "$0")/.."
n=${1:-600}
secs=${2:-5}
rounds=${3:-3}
os=$(uname -s)

work=$(mktemp -d "${TMPDIR:-/tmp}/tether-tick.XXXXXX")
sleepers=
# shellcheck disable=SC2317 # run by the trap
finish() {
	# Only the sleeps started here, by PID, while they are still this
	# shell's children: a PID recycled since is never signalled.
	mine=" $(ps -A -o pid= -o ppid= 2>/dev/null | awk -v me="$$" '$2 == me { printf "%s ", $1 }')"
	for p in $sleepers; do
		case $mine in *" $p "*) kill "$p" 2>/dev/null || true ;; esac
	done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap finish EXIT
trap 'exit 130' INT TERM

# The builds, each "LABEL PATH".
builds=
build() { # LABEL SRC TAGS
	out=$work/tether-$(printf '%s' "$1" | tr -c 'A-Za-z0-9' '_')
	(cd "$2" && go build -tags "urfave_cli_no_docs${3:+,$3}" -o "$out" .)
	builds="$builds$1	$out
"
}
if [ "$os" = Linux ]; then
	build "full path" . ""
	build "portable path (tetherportable)" . tetherportable
	if [ -n "${TETHER_BASELINE_SRC:-}" ]; then
		build "baseline, full path" "$TETHER_BASELINE_SRC" ""
		build "baseline, portable path" "$TETHER_BASELINE_SRC" tetherportable
	fi
else
	build "native ($os, portable path)" . ""
	if [ -n "${TETHER_BASELINE_SRC:-}" ]; then
		build "baseline, native" "$TETHER_BASELINE_SRC" ""
	fi
fi

i=0
while [ "$i" -lt "$n" ]; do
	sleep 3600 >/dev/null 2>&1 &
	sleepers="$sleepers $!"
	i=$((i + 1))
done
sleep 1 # until they have all executed sleep
total=$(ps -A -o pid= | wc -l | tr -d ' ')

# cpu BINARY: the user and system time of one run, in seconds, of the
# process and the descendants it waited for: from wait4's rusage through
# python3 (microseconds), else from /usr/bin/time -p (hundredths).
if python3 -c 'import resource' 2>/dev/null; then
	cpu() {
		# shellcheck disable=SC2086 # FLAGS are words, split on purpose
		python3 - "$1" "$secs" ${FLAGS:-} <<'PY'
import os, subprocess, sys
p = subprocess.Popen([sys.argv[1], "run"] + sys.argv[3:] + ["--", "sleep", sys.argv[2]], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
_, _, ru = os.wait4(p.pid, 0)
print("%.3f" % (ru.ru_utime + ru.ru_stime))
PY
	}
else
	cpu() {
		# shellcheck disable=SC2086
		/usr/bin/time -p "$1" run ${FLAGS:-} -- sleep "$secs" </dev/null >/dev/null 2>"$work/time" || true
		awk '$1 == "user" { u = $2 } $1 == "sys" { s = $2 } END { printf "%.2f", u + s }' "$work/time"
	}
fi

results=$work/results
: >"$results"
r=1
while [ "$r" -le "$rounds" ]; do
	printf '%s' "$builds" | while IFS='	' read -r label bin; do
		[ -n "$label" ] || continue
		printf '%s\t%s\n' "$label" "$(cpu "$bin")" >>"$results"
	done
	r=$((r + 1))
done

echo "## tether run ${FLAGS:+$FLAGS }-- sleep $secs: CPU time (user + sys) with $n idle processes besides"
echo
echo "$(date -u +%Y-%m-%d), $os $(uname -r), $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') cores, $total processes in all, $(go version | cut -d' ' -f3), $rounds rounds side by side"
echo
awk -F'\t' -v secs="$secs" '
	{ if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 }; v[$1, ++c[$1]] = $2 }
	END {
		for (i = 1; i <= k; i++) {
			l = order[i]
			# The median of each build'"'"'s rounds (an insertion sort).
			for (a = 1; a <= c[l]; a++) s[a] = v[l, a] + 0
			for (a = 2; a <= c[l]; a++) for (b = a; b > 1 && s[b - 1] > s[b]; b--) { t = s[b]; s[b] = s[b - 1]; s[b - 1] = t }
			med[l] = (c[l] % 2) ? s[(c[l] + 1) / 2] : (s[c[l] / 2] + s[c[l] / 2 + 1]) / 2
			runs[l] = v[l, 1]
			for (a = 2; a <= c[l]; a++) runs[l] = runs[l] ", " v[l, a]
		}
		print "| build | each round (s) | median (s) | of one core | × full path |"
		print "|---|---|---:|---:|---:|"
		for (i = 1; i <= k; i++) {
			l = order[i]
			ref = (l ~ /^baseline/) ? "baseline, full path" : "full path"
			x = ((ref in med) && med[ref] > 0) ? sprintf("%.1f", med[l] / med[ref]) : "–"
			printf "| %s | %s | %.3f | %.1f %% | %s |\n", l, runs[l], med[l], 100 * med[l] / secs, x
		}
	}' "$results"
