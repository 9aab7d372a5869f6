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

// through reports whether command runs the program, at any path.
func (w Wrapping) through(command string) bool {
	base := filepath.Base(strings.ReplaceAll(command, `\`, "/"))
	return base == w.Program || strings.EqualFold(base, w.Program+".exe")
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
