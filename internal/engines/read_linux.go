//go:build linux

package engines

import (
	"bytes"
	"sync"

	"github.com/tetherproc/tether/internal/proc"
)

// cgroup is the process's cgroup file, or what it would hold, made from
// r.Cgroup where v2 is the only hierarchy.
func (r Read) cgroup(fs proc.FS, pid int) ([]byte, error) {
	if r.Cgroup != "" && unifiedOnly() {
		return []byte("0::" + r.Cgroup + "\n"), nil
	}
	return fs.ReadFile(pid, "cgroup")
}

// unifiedOnly reports whether cgroup v2 is the only hierarchy: a
// process's cgroup file then has the one "0::" line. The hierarchies are
// the machine's, the same in every process's file.
var unifiedOnly = sync.OnceValue(func() bool {
	data, err := proc.ReadPlain(proc.Host().Root() + "/self/cgroup")
	if err != nil {
		return false
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte{'\n'}) {
		if !bytes.HasPrefix(line, []byte("0::")) {
			return false
		}
	}
	return len(data) > 0
})
