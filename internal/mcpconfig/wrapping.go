package mcpconfig

import (
	"path/filepath"
	"slices"
	"strings"
)

// Wrapping is how an entry runs through tether: Command is the program
// that replaces the entry's own, and Prefix(server) the args that come
// before the entry's command and args. The caller owns the words; the
// package only puts them in and takes them out.
type Wrapping struct {
	Command string
	Prefix  func(server string) []string
	// Program is the base name that says an entry already runs through
	// tether, whatever its directory: an entry wrapped by an earlier
	// tether at another path is still recognised.
	Program string
}

// through reports whether command runs the program, at any path, or
// the wrapping's own command's file, whatever its name.
func (w Wrapping) through(command string) bool {
	base := baseName(command)
	for _, p := range []string{w.Program, baseName(w.Command)} {
		if p != "" && (base == p || strings.EqualFold(base, p+".exe")) {
			return true
		}
	}
	return false
}

// shaped reports whether e is in exactly the form Wrap writes, its
// prefix for its own key then a command, run by a program whose name
// begins with the wrapping's Program: a tether released or renamed as
// tether_linux_amd64 or tether-portable wrapped it. Its shape, not its
// program's name alone, is what counts, so that another program whose
// name happens to begin so is not taken for tether.
func (w Wrapping) shaped(e Entry) bool {
	if w.Program == "" || !strings.HasPrefix(strings.ToLower(baseName(e.Command)), strings.ToLower(w.Program)) {
		return false
	}
	_, _, ok := w.original(e.Server, e.Args)
	return ok
}

// baseName is a path's last element, with either separator: a Windows
// client's file read elsewhere still names its programs so.
func baseName(path string) string {
	if path == "" {
		return ""
	}
	return filepath.Base(strings.ReplaceAll(path, `\`, "/"))
}

// original is the command and args that a wrapped entry's args hold
// after Wrap's prefix, and whether they are in exactly Wrap's form.
func (w Wrapping) original(server string, args []string) (command string, rest []string, ok bool) {
	p := w.Prefix(server)
	if len(args) <= len(p) || !slices.Equal(args[:len(p)], p) {
		return "", nil, false
	}
	return args[len(p)], args[len(p)+1:], true
}
