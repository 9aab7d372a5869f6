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
