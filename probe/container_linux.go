package probe

import (
	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/marker"
)

// containerStamp finds the stamp of the container pid is in, for a
// process whose own environment does not say whose it is (cleared, or
// overwritten by a new process title): the stamp of its run's cgroup, or
// the environment of the init of its PID namespace when that init is
// tethered. where names the container.
func containerStamp(pid, uid int) (env []string, where *Container, ok bool) {
	if env, where, ok := cgroupStamp(pid, uid); ok {
		return env, where, true
	}
	return namespaceStamp(pid)
}

// cgroupStamp reads the stamp of pid's run cgroup, whose name must
// agree with the run id it holds, and which must be a group of root's or
// of the process's own real uid: anyone may make a group of their own
// that names another's run.
func cgroupStamp(pid, uid int) ([]string, *Container, bool) {
	h, err := cgroup.Host()
	if err != nil {
		return nil, nil, false
	}
	path, err := proc.Host().Cgroup(pid)
	if err != nil {
		return nil, nil, false
	}
	token, group, ok := cgroup.RunOf(path)
	if !ok {
		return nil, nil, false
	}
	dir := h.Dir(group)
	if dir == "" {
		return nil, nil, false
	}
	if owner, err := cgroup.Owner(dir); err != nil || owner != 0 && owner != uid {
		return nil, nil, false
	}
	env, err := cgroup.Stamp(dir)
	if err != nil {
		return nil, nil, false
	}
	if v, _ := lookup(env, marker.RunIDVar); cgroup.Token(v) != token {
		return nil, nil, false
	}
	return env, &Container{Kind: InCgroup, Cgroup: group}, true
}

// namespaceStamp reads the environment of the init of pid's PID
// namespace, when that namespace lies below this /proc's: every process
// of it dies with its init, so a tethered init ties them all to its run.
// The init is pid's nearest ancestor that is PID 1 at pid's depth.
func namespaceStamp(pid int) ([]string, *Container, bool) {
	fs := proc.Host()
	st, err := fs.Status(pid)
	depth := len(st.NSpid)
	if err != nil || depth < 2 {
		return nil, nil, false
	}
	for q, hops := pid, 0; q > 1 && hops < 4096; hops++ {
		qs, err := fs.Status(q)
		if err != nil || len(qs.NSpid) != depth {
			return nil, nil, false
		}
		if qs.NSpid[depth-1] == 1 {
			env, err := fs.Environ(q)
			if err != nil {
				return nil, nil, false
			}
			return env, &Container{Kind: InPIDNamespace, Init: q}, true
		}
		p, err := fs.Stat(q)
		if err != nil {
			return nil, nil, false
		}
		q = p.PPID
	}
	return nil, nil, false
}
