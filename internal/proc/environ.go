package proc

import (
	"bytes"
	"slices"
	"strings"
)

// ParseEnviron splits the contents of /proc/PID/environ into its
// NUL-terminated entries. An unterminated last entry is dropped: it may be
// the cut-off head of a longer one ("TETHER_NAME=files" of
// "TETHER_NAME=files2"), and identity must never rest on a guess. Empty
// entries inside the blob are kept, as the process was given them.
func ParseEnviron(data []byte) []string {
	return splitNUL(data, false)
}

// ParseCmdline splits the contents of /proc/PID/cmdline into arguments.
// Unlike the environment it is only shown, never trusted, so an
// unterminated last argument (a process that rewrote its title) is kept.
func ParseCmdline(data []byte) []string {
	return splitNUL(data, true)
}

func splitNUL(data []byte, keepPartial bool) []string {
	if len(data) == 0 {
		return nil
	}
	out := make([]string, 0, bytes.Count(data, []byte{0})+1)
	for len(data) > 0 {
		entry, rest, found := bytes.Cut(data, []byte{0})
		if !found && !keepPartial {
			break
		}
		out = append(out, string(entry))
		data = rest
	}
	return out
}

// HasEntries reports whether a raw environ blob holds each of entries
// whole, as ParseEnviron would split it, without allocating: only
// NUL-terminated entries count, compared byte for byte, so that a scan
// over every process does not pay for strings it will throw away.
func HasEntries(blob []byte, entries [][]byte) bool {
	var small [4]bool
	var found []bool
	if len(entries) <= len(small) {
		found = small[:len(entries)]
	} else {
		found = make([]bool, len(entries))
	}
	left := len(entries)
	for left > 0 {
		i := bytes.IndexByte(blob, 0)
		if i < 0 {
			return false
		}
		entry := blob[:i]
		blob = blob[i+1:]
		for j, want := range entries {
			if !found[j] && bytes.Equal(entry, want) {
				found[j] = true
				left--
			}
		}
	}
	return true
}

// Overwritten reports whether an environment read back no longer reads
// as the process's environment: programs that set their title (Perl and
// Ruby $0, setproctitle, PostgreSQL, nginx) write it over the memory that
// /proc/PID/environ shows, which then starts with something that is not a
// KEY=VALUE entry (blanks, NULs, the title) or repeats the command line.
// An execve lays the environment out with a KEY=VALUE entry first unless
// its caller passed something odd; such a process is unverifiable too,
// which costs nothing: it is never taken for tethered.
func Overwritten(env, cmdline []string) bool {
	if len(env) == 0 {
		return false
	}
	if slices.Equal(env, cmdline) {
		return true
	}
	key, _, ok := strings.Cut(env[0], "=")
	if !ok || key == "" {
		return true
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c <= ' ' || c == 0x7f {
			return true
		}
	}
	return false
}

// EnvValue is the value of the first NUL-terminated entry of a raw
// environ blob that starts with prefix ("KEY="), as ParseEnviron would
// split it; "" when there is none.
func EnvValue(blob, prefix []byte) string {
	for {
		entry, rest, found := bytes.Cut(blob, []byte{0})
		if !found {
			return ""
		}
		if v, ok := bytes.CutPrefix(entry, prefix); ok {
			return string(v)
		}
		blob = rest
	}
}
