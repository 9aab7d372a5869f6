package proc

import (
	"bytes"
	"strings"
)

// Mount is one line of /proc/PID/mountinfo, as far as tether reads it.
type Mount struct {
	Root    string   // the directory of the file system mounted there
	Point   string   // where it is mounted
	FSType  string   // proc, cgroup2, ...
	Options []string // the file system's own options (hidepid=2, ...)
}

// ParseMountInfo parses /proc/PID/mountinfo: field 4 is the root of the
// mount within its file system, field 5 the mount point;
// after the " - " separator come the type, the source and the super
// options. Lines it cannot read are skipped.
func ParseMountInfo(data []byte) []Mount {
	var out []Mount
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		head, tail, ok := strings.Cut(string(line), " - ")
		fields, super := strings.Fields(head), strings.Fields(tail)
		if !ok || len(fields) < 5 || len(super) < 2 {
			continue
		}
		m := Mount{Root: fields[3], Point: fields[4], FSType: super[0]}
		if len(super) > 2 {
			m.Options = strings.Split(super[2], ",")
		}
		out = append(out, m)
	}
	return out
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
