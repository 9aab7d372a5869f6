package proc

import (
	"bytes"
	"strings"
)

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
