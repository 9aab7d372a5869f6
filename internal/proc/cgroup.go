package proc

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrNoCgroup2 says a process has no place in a cgroup v2 hierarchy
// (a machine with cgroup v1 alone).
var ErrNoCgroup2 = errors.New("no cgroup v2 entry")

// ParseCgroup parses /proc/PID/cgroup and returns the process's path in
// the cgroup v2 hierarchy: the "0::" line, which stands beside the v1
// lines on a hybrid machine. The path is relative to the reader's cgroup
// namespace.
func ParseCgroup(data []byte) (string, error) {
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if path, ok := bytes.CutPrefix(line, []byte("0::")); ok {
			if len(path) == 0 || path[0] != '/' {
				return "", fmt.Errorf("cgroup v2 path %q: not absolute", path)
			}
			return string(path), nil
		}
	}
	return "", ErrNoCgroup2
}
