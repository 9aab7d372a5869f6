#!/usr/bin/env bash
# Builds a release snapshot with goreleaser (pinned, installed into a
# temporary directory) and checks that what it makes works, without
# installing anything on this machine:
#
#   bash scripts/dist-check.sh          goreleaser check, the snapshot and every check below
#   bash scripts/dist-check.sh --config-only   goreleaser check alone
#
# The snapshot goes to dist/ (ignored by git); nothing is published. The
# linux/amd64 .deb is unpacked into a temporary root, and its tether,
# manual page and completions are tried from there. Checks that need a
# tool this machine lacks (man, zsh, fish, bsdtar, unshare as root, a
# Docker engine) say "skipped" and why.
set -euo pipefail
cd "$(dirname "$0")/.."

goreleaser_version=v2.15.1
# The repository's address, for a checkout with no remote (goreleaser
# reads it from git, and without it stamps no commit at all).
repository_url=https://github.com/tetherproc/tether.git

mode=full
case "${1:-}" in
"") ;;
--config-only) mode=config ;;
*) echo "usage: $0 [--config-only]" >&2; exit 2 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
ok() { echo "ok: $*"; }
skipped() { echo "skipped: $*"; }
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }

echo "-- goreleaser $goreleaser_version"
# A tool, not a dependency: go.mod and go.sum stay as they are. The first
# install downloads and compiles it (minutes); the go build cache makes
# every later one a link (seconds).
GOBIN="$work/bin" go install "github.com/goreleaser/goreleaser/v2@${goreleaser_version}"
goreleaser="$work/bin/goreleaser"
"$goreleaser" --version | grep -m1 GitVersion || true

echo "-- goreleaser check"
"$goreleaser" check
[ "$mode" = config ] && exit 0

echo "-- goreleaser release --snapshot --clean"
if [ -z "$(git remote)" ]; then
	n=${GIT_CONFIG_COUNT:-0}
	export "GIT_CONFIG_KEY_$n=remote.origin.url" "GIT_CONFIG_VALUE_$n=$repository_url"
	export GIT_CONFIG_COUNT=$((n + 1))
fi
start=$(date +%s)
"$goreleaser" release --snapshot --clean >"$work/release.log" 2>&1 || {
	cat "$work/release.log"
	echo "goreleaser release --snapshot failed"
	exit 1
}
build_seconds=$(($(date +%s) - start))
grep -E 'version=|took:|succeeded' "$work/release.log" || true
echo "snapshot build: ${build_seconds}s"
ls -l dist/

head=$(git rev-parse HEAD)
# Changes not committed show as -dirty after the commit: goreleaser's
# stamp says so from the first tag on (a release refuses a dirty tree),
# and before it the go command's VCS stamp does, when it made one.
dirty=
if [ -n "$(git status --porcelain)" ]; then
	if git describe --tags --abbrev=0 >/dev/null 2>&1 ||
		go version -m dist/tether_linux_amd64_v1/tether | grep -q 'vcs.modified='; then
		dirty=-dirty
	else
		dirty="(-dirty)?"
		echo "the tree has changes, but no tag and no VCS stamp: -dirty is not required"
	fi
fi

one() { # the one file matching a glob, or a failure
	local matches=("$@")
	if [ ${#matches[@]} -ne 1 ] || [ ! -f "${matches[0]}" ]; then
		echo "want exactly one of $*" >&2
		exit 1
	fi
	echo "${matches[0]}"
}
deb=$(one dist/tether_*_amd64.deb)
rpm=$(one dist/tether-*.x86_64.rpm)
apk=$(one dist/tether_*_x86_64.apk)
archive=$(one dist/tether_*_linux_amd64.tar.gz)

echo "-- checksums.txt"
# Every artifact named in it, and every archive and package named there.
if (cd dist && sha256sum --quiet -c checksums.txt); then
	ok "every artifact matches checksums.txt"
else
	bad "an artifact does not match checksums.txt"
fi
for f in dist/*.tar.gz dist/*.deb dist/*.rpm dist/*.apk; do
	grep -q "  ${f#dist/}\$" dist/checksums.txt || bad "${f#dist/} is not in checksums.txt"
done

echo "-- the linux/amd64 archive"
mkdir "$work/archive"
tar -xzf "$archive" -C "$work/archive"
for f in tether README.md LICENSE CHANGELOG.md docs/commands.md docs/man/tether.1 completions/tether.bash completions/_tether completions/tether.fish; do
	[ -f "$work/archive/$f" ] || bad "$(basename "$archive") has no $f"
done
bin="$work/archive/tether"
if cmp -s "$bin" dist/tether_linux_amd64_v1/tether; then
	ok "the archive's binary is the one built"
else
	bad "the archive's binary differs from dist/tether_linux_amd64_v1/tether"
fi
# Static: no program interpreter (the dynamic loader) and no dynamic
# section; stripped: no symbol table.
if command -v readelf >/dev/null; then
	headers=$(readelf -lW "$bin")
	sections=$(readelf -SW "$bin")
	if grep -q INTERP <<<"$headers" || grep -q DYNAMIC <<<"$headers"; then
		bad "the archive's binary is dynamically linked: $(grep -E 'INTERP|DYNAMIC' <<<"$headers" | tr -s ' ')"
	else
		ok "static: no PT_INTERP, no PT_DYNAMIC"
	fi
	grep -q '\.symtab' <<<"$sections" && bad "the archive's binary has a symbol table (not stripped)"
elif command -v file >/dev/null; then
	file -b "$bin" | grep -q 'statically linked' && ok "static: $(file -b "$bin")" || bad "not static: $(file -b "$bin")"
else
	skipped "no readelf or file to inspect the ELF headers"
fi
buildinfo=$(go version -m "$bin")
for want in CGO_ENABLED=0 -tags=urfave_cli_no_docs -trimpath=true; do
	grep -q -- "build	$want\$" <<<"$buildinfo" || bad "go version -m: the archive's binary was not built with $want"
done
echo "linux/amd64 binary: $(stat -c %s "$bin") bytes"
for arch in amd64 arm64; do
	mkdir "$work/darwin_$arch"
	tar -xzf "$(one dist/tether_*_darwin_$arch.tar.gz)" -C "$work/darwin_$arch" tether
	if command -v file >/dev/null; then
		file -b "$work/darwin_$arch/tether" | grep -q Mach-O || bad "darwin/$arch: $(file -b "$work/darwin_$arch/tether")"
	fi
done

echo "-- the packages' files"
# Where each is installed: the binary, the manual page, and each shell's
# completion where that distribution's shell loads it (zsh: Debian's
# vendor-completions, site-functions elsewhere).
common="usr/bin/tether usr/share/man/man1/tether.1 usr/share/bash-completion/completions/tether usr/share/fish/vendor_completions.d/tether.fish"
want_files() { # package, listing, expected paths...
	local pkg=$1 listing=$2
	shift 2
	for f in "$@"; do
		grep -qx "$f" <<<"$listing" || bad "$(basename "$pkg") does not install /$f"
	done
	ok "$(basename "$pkg") installs $(echo "$@" | wc -w) files where wanted"
}
# shellcheck disable=SC2086
want_files "$deb" "$(dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./||')" $common usr/share/zsh/vendor-completions/_tether
# shellcheck disable=SC2086
want_files "$apk" "$(tar -tzf "$apk" 2>/dev/null)" $common usr/share/zsh/site-functions/_tether
if command -v bsdtar >/dev/null; then
	# shellcheck disable=SC2086
	want_files "$rpm" "$(bsdtar -tf "$rpm" | sed 's|^/||')" $common usr/share/zsh/site-functions/_tether
else
	skipped "the .rpm's file list: no bsdtar (libarchive-tools)"
fi

echo "-- the .deb unpacked into a temporary root"
root="$work/root"
dpkg-deb -x "$deb" "$root"
tether="$root/usr/bin/tether"
cmp -s "$tether" "$bin" || bad "the .deb's binary differs from the archive's"
for pair in usr/share/man/man1/tether.1:docs/man/tether.1 \
	usr/share/bash-completion/completions/tether:completions/tether.bash \
	usr/share/zsh/vendor-completions/_tether:completions/_tether \
	usr/share/fish/vendor_completions.d/tether.fish:completions/tether.fish; do
	cmp -s "$root/${pair%%:*}" "${pair#*:}" || bad "the .deb's /${pair%%:*} is not the checkout's ${pair#*:}"
done
version=$("$tether" --version)
echo "$version"
if grep -qxE "commit:   $head$dirty" <<<"$version"; then
	ok "--version names the checkout's commit: $(grep '^commit:' <<<"$version" | tr -s ' ')"
else
	bad "--version does not name commit $head$dirty"
fi
grep -q '^tether version [0-9]' <<<"$version" || bad "--version's first line is not tether version X.Y.Z..."
grep -qE '^built:    [0-9]{4}-' <<<"$version" || bad "--version names no build date"
json=$("$tether" --version --json)
echo "$json"
grep -q "\"commit\":\"$head\"" <<<"$json" || bad "--version --json does not name commit $head"
if "$tether" doctor >"$work/doctor.txt" 2>&1; then
	ok "tether doctor"
else
	bad "tether doctor: exit $?: $(cat "$work/doctor.txt")"
fi
if "$tether" run -- true; then ok "tether run -- true"; else bad "tether run -- true: exit $?"; fi
status=0
"$tether" run -- sh -c 'exit 7' || status=$?
[ "$status" = 7 ] && ok "tether run passes the command's exit status on (7)" || bad "tether run -- sh -c 'exit 7': exit $status"

echo "-- the manual page"
man_page="$root/usr/share/man/man1/tether.1"
if command -v man >/dev/null; then
	if MANPAGER=cat MANWIDTH=80 man -l "$man_page" 2>"$work/man.err" | grep -q 'tether run'; then
		ok "man -l renders it"
	else
		bad "man -l $man_page: $(cat "$work/man.err")"
	fi
	found=$(man --manpath="$root/usr/share/man" -w tether 2>/dev/null || true)
	[ "$found" = "$man_page" ] && ok "man finds it as tether(1) under usr/share/man" || bad "man -M usr/share/man -w tether: '$found'"
else
	skipped "no man (man-db)"
fi

echo "-- completions, loaded where each shell loads them"
# bash-completion loads a command's completion on demand from
# completions/ under each of XDG_DATA_DIRS (default /usr/local/share and
# /usr/share), so pointing XDG_DATA_DIRS at the root's usr/share has it
# load the package's file by itself.
bash_completion=/usr/share/bash-completion/bash_completion
if [ -f "$bash_completion" ]; then
	dir=$(pkg-config --variable=completionsdir bash-completion 2>/dev/null || echo /usr/share/bash-completion/completions)
	[ -f "$root$dir/tether" ] || bad "bash-completion loads from $dir, the package installs no $dir/tether"
	offered=$(PATH="$root/usr/bin:$PATH" XDG_DATA_DIRS="$root/usr/share" bash --norc -c "
		source $bash_completion
		if declare -F _comp_load >/dev/null; then _comp_load tether; else __load_completion tether; fi || exit 1
		COMP_WORDS=(tether ''); COMP_CWORD=1; _tether
		printf '%s\n' \"\${COMPREPLY[@]}\"" 2>&1) || true
	if grep -qx run <<<"$offered" && grep -qx reclaim <<<"$offered"; then
		ok "bash loads it from $dir and offers tether's commands"
	else
		bad "bash: the completion was not loaded or offers no commands: $offered"
	fi
else
	skipped "bash: no bash-completion at $bash_completion"
fi
if command -v zsh >/dev/null; then
	dir=/usr/share/zsh/vendor-completions
	if zsh -fc 'print -rl -- $fpath' | grep -qx "$dir"; then
		ok "zsh's \$fpath holds $dir"
	else
		bad "zsh's \$fpath does not hold $dir, where the .deb installs _tether"
	fi
	loaded=$(HOME="$work" zsh -fc "fpath=($root$dir \$fpath); autoload -Uz compinit; compinit -u -d $work/zcompdump; print -r -- \$_comps[tether]" 2>&1) || true
	[ "$loaded" = _tether ] && ok "zsh's compinit finds _tether there" || bad "zsh: compinit did not find _tether: $loaded"
else
	skipped "zsh: not installed"
fi
if command -v fish >/dev/null; then
	# fish looks in vendor_completions.d under each of XDG_DATA_DIRS.
	dir=/usr/share/fish/vendor_completions.d
	HOME="$work" fish -c 'printf "%s\n" $fish_complete_path' | grep -qx "$dir" || bad "fish's \$fish_complete_path does not hold $dir"
	offered=$(HOME="$work" XDG_DATA_DIRS="$root/usr/share" PATH="$root/usr/bin:$PATH" fish -c "complete -C 'tether '" 2>&1) || true
	if grep -q '^reclaim' <<<"$offered"; then
		ok "fish loads it from $dir and offers tether's commands"
	else
		bad "fish: the completion was not loaded: $offered"
	fi
else
	skipped "fish: not installed"
fi

echo "-- the archive's binary as PID 1 of a PID namespace (a container's init)"
unshare=(unshare --pid --fork --mount-proc)
if [ "$(id -u)" != 0 ]; then
	unshare=(unshare --user --map-root-user --pid --fork --mount-proc)
fi
if ! command -v unshare >/dev/null; then
	skipped "no unshare (util-linux)"
elif ! "${unshare[@]}" true 2>"$work/unshare.err"; then
	skipped "${unshare[*]} is refused here: $(cat "$work/unshare.err")"
else
	status=0
	out=$("${unshare[@]}" "$bin" run -- sh -c 'echo "pid $$, init $(cat /proc/1/comm)"; sleep 1 & exit 3' 2>&1) || status=$?
	echo "$out"
	if [ "$status" = 3 ] && grep -qE '^pid [0-9]+, init tether$' <<<"$out"; then
		ok "as PID 1, tether runs the command and exits with its status (3)"
	else
		bad "as PID 1: exit $status, output '$out'; want 3 and init tether"
	fi
fi

echo "-- docker build of the container recipe (docs/recipes.md)"
if ! command -v docker >/dev/null; then
	skipped "no docker command"
elif ! docker info >/dev/null 2>"$work/docker.err"; then
	skipped "no Docker engine: $(grep -m1 . "$work/docker.err")"
else
	mkdir "$work/image"
	cp "$archive" "$work/image/"
	cat >"$work/image/Dockerfile" <<EOF
FROM scratch AS tether
ADD $(basename "$archive") /tether/
FROM scratch
COPY --from=tether /tether/tether /usr/local/bin/tether
ENTRYPOINT ["/usr/local/bin/tether", "run", "--"]
CMD ["/usr/local/bin/tether", "--version"]
EOF
	tag="tether-dist-check:$$"
	# The legacy builder's deprecation notice goes to stderr on every
	# build: kept aside, and shown only when the build fails.
	if docker build -q -t "$tag" "$work/image" >/dev/null 2>"$work/build.err"; then
		out=$(docker run --rm "$tag" 2>&1) || true
		grep -q "commit:   $head" <<<"$out" && ok "docker run: tether as ENTRYPOINT runs the command" || bad "docker run: $out"
		docker image rm "$tag" >/dev/null || true
	else
		bad "docker build failed: $(tail -n 3 "$work/build.err")"
	fi
fi

echo "snapshot build took ${build_seconds}s, the whole check ${SECONDS}s"
if [ "$failures" -gt 0 ]; then
	echo "dist-check: $failures failed"
	exit 1
fi
echo "dist-check passed"
