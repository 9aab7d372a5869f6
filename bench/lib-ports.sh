# Sourced by ports.sh and wait.sh: the set-up both share. It installs the
# tools named in $need_tools (command:package) that are missing, builds
# tether and the listener into $work, starts a tethered listener on a
# random $port ($holder), and offers grow_idle N, which keeps N idle
# sleepers alive. On exit it ends only what it started.

need=()
for tool in $need_tools; do
	command -v "${tool%%:*}" >/dev/null || need+=("${tool#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
	apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi

work=$(mktemp -d)
idle=()
holder=
cleanup() {
	# Only what this script started: the idle sleepers and the holder.
	[ ${#idle[@]} -gt 0 ] && kill "${idle[@]}" 2>/dev/null
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
go build -tags urfave_cli_no_docs -o "$work/tether" .
go build -o "$work/listener" ./bench/testdata/listener
port=$((20000 + RANDOM % 20000))
"$work/tether" run --outlive-parent --name bench-listener -- "$work/listener" "$port" &
holder=$!
"$work/tether" wait --port "$port" --timeout 5s >/dev/null

# grow_idle N keeps N idle sleepers alive, counting those started before.
grow_idle() {
	while [ ${#idle[@]} -lt "$1" ]; do
		sleep 100000 &
		idle+=($!)
	done
}
