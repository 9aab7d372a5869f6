//go:build linux && !tetherportable

package spawn

import (
	"errors"
	"syscall"

	"github.com/tetherproc/tether/internal/pidns"
	"github.com/tetherproc/tether/internal/trace"
)

// contain sets the child up to start in its container: born in the run's
// cgroup, or as the init of new namespaces, running the command. It
// returns the path and arguments to start.
func (r *supervisor) contain(path string, attr *syscall.ProcAttr) (string, []string, error) {
	mode := r.cfg.Contain
	if mode == NoContainment {
		return path, r.cfg.Args, nil
	}
	if mode == ContainAuto || mode == ContainCgroup {
		err := r.newCgroup()
		if err == nil {
			attr.Sys.UseCgroupFD, attr.Sys.CgroupFD = true, r.group.FD()
			trace.Printf("contained in cgroup %s", r.group.Path())
			return path, r.cfg.Args, nil
		}
		r.tried = append(r.tried, "cgroup: "+err.Error())
	}
	if mode == ContainAuto && r.cfg.Forking || mode == ContainPIDNamespace && r.cfg.Forking {
		// The namespace's init ends it when the command exits: a
		// daemon's tree would go with it.
		r.tried = append(r.tried, "pidns: not with Forking (the namespace ends with the command)")
		return "", nil, containFailed(mode, r.tried)
	}
	if mode == ContainAuto || mode == ContainPIDNamespace {
		self := selfPath()
		err := pidns.Usable()
		if err == nil && (!r.cfg.Reexec || self == "") {
			err = errors.New("no binary to run as the namespace's init (Config.Reexec)")
		}
		if err == nil {
			var argv []string
			if r.init, argv, err = pidns.Prepare(self, path, r.cfg.Args, r.cfg.Grace, attr); err == nil {
				trace.Printf("contained in a new PID namespace, under tether's init")
				return self, argv, nil
			}
		}
		r.tried = append(r.tried, "pidns: "+err.Error())
	}
	return "", nil, containFailed(mode, r.tried)
}
