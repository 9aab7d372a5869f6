package runtree

import (
	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

// Below is the subtree of root as fs numbers it, by the kernel's
// children lists, without the process skip names and its own subtree (a
// supervisor's watchdog, asked at each look: one that died is replaced
// by another child of root): the whole of a run whose supervisor is its
// subreaper.
func Below(fs proc.FS, root int, skip func() int) Source {
	return SourceFunc(func() ([]procid.ID, bool) { return ptree.Subtree(fs, root, skip()), false })
}

// Kept are those of ms that are still the processes they name, each with
// its live descendants: the list of a tree its supervisor wrote down,
// read again once the tree may have scattered. It holds the processes
// that renamed themselves or cleared their environment.
func Kept(fs proc.FS, ms []procid.ID) Source {
	return SourceFunc(func() ([]procid.ID, bool) {
		if len(ms) == 0 {
			return nil, false
		}
		return ptree.Unique(ptree.Look(fs).AliveWithSubtrees(ms)), false
	})
}

// Carriers are the processes that carry any one of entries (RUN_ID=…)
// in their environments, found by reading every process's. A process
// of uid's caught in the middle of an execve leaves the look unsettled;
// another user's does not, since anyone can make one that looks so for
// good.
func Carriers(fs proc.FS, entries []string, uid int) Source {
	return SourceFunc(func() ([]procid.ID, bool) {
		ms, executing := ptree.ScanAny(fs, entries)
		return ms, len(executing) > 0 && len(ptree.OwnedPIDs(fs, executing, uid)) > 0
	})
}

// Cgroup is the members of the run's cgroup g (none for a nil g), which
// holds whatever its members fork, also a PID namespace set up inside
// it; as the grace ends the whole cgroup is killed at once.
func Cgroup(g *cgroup.Group) Source { return cgroupSource{g} }

type cgroupSource struct{ g *cgroup.Group }

func (c cgroupSource) List() ([]procid.ID, bool) { return c.g.Members(), false }

func (c cgroupSource) KillAll() { c.g.KillAll() }
