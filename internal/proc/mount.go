package proc

import (
	"strings"
)

// Mount is one line of /proc/PID/mountinfo, as far as tether reads it.
type Mount struct {
	Root    string   // the directory of the file system mounted there
	Point   string   // where it is mounted
	FSType  string   // proc, cgroup2, ...
	Options []string // the file system's own options (hidepid=2, ...)
}

// HidePID is the hidepid option of a proc mount ("" or "0" or "off"
// when other users' processes are shown).
func (m Mount) HidePID() string {
	for _, opt := range m.Options {
		if v, ok := strings.CutPrefix(opt, "hidepid="); ok {
			return v
		}
	}
	return ""
}

// Hides reports whether a proc mount leaves other users' processes out.
func (m Mount) Hides() bool {
	v := m.HidePID()
	return v != "" && v != "0" && v != "off"
}
