//go:build darwin

package reclaim

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/probe"
)

// scanTethered lists processes through sysctl kern.proc.all and matches
// each one's environment (kern.procargs2). Other users' environments are
// unreadable here unless running as root.
func scanTethered(m probe.Markers, name string, anyUser bool) []int {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	uid := uint32(os.Geteuid())
	var out []int
	for _, k := range procs {
		pid := int(k.Proc.P_pid)
		if pid <= 0 || pid == os.Getpid() || (!anyUser && k.Eproc.Ucred.Uid != uid) {
			continue
		}
		env, err := probe.ReadEnviron(pid)
		if err == nil && m.Match(env, name) {
			out = append(out, pid)
		}
	}
	return out
}
