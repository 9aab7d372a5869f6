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
func containerStamp(r *Report, p proc.Process) (env []string, where *Container, ok bool) {
	if env, where, ok := cgroupStamp(r, p.UID); ok {
		return env, where, true
	}
	return namespaceStamp(p)
}

// cgroupStamp reads the stamp of pid's run cgroup, whose name must
// agree with the run id it holds, and which must be a group of root's or
// of the process's own real uid: anyone may make a group of their own
// that names another's run.
func cgroupStamp(r *Report, uid int) ([]string, *Container, bool) {
	h, err := cgroup.Host()
	if err != nil {
		return nil, nil, false
	}
	path, err := proc.Host().Cgroup(r.PID)
	if err != nil {
		return nil, nil, false
	}
	r.Cgroup = path
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
func namespaceStamp(p proc.Process) ([]string, *Container, bool) {
	fs := proc.Host()
	depth := len(p.NSpid)
	if depth < 2 {
		return nil, nil, false
	}
	// p was read already: its ancestors are read as the walk goes up.
	for q, hops := p, 0; q.PID > 1 && hops < 4096; hops++ {
		if len(q.NSpid) != depth {
			return nil, nil, false
		}
		if q.NSpid[depth-1] == 1 {
			env, err := fs.Environ(q.PID)
			if err != nil {
				return nil, nil, false
			}
			return env, &Container{Kind: InPIDNamespace, Init: q.PID}, true
		}
		next, err := fs.Process(q.PPID)
		if err != nil {
			return nil, nil, false
		}
		q = next
	}
	return nil, nil, false
}
