//go:build linux && !tetherportable

package spawn

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
)

// This file holds what Linux gives a run beyond the portable path (the
// tetherportable build tag, and macOS): the parent-death signal, the
// child subreaper, and containment (contain_full.go).

// becomeSubreaper makes every orphan of the tree come back to tether.
func becomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// followParent arms SIGTERM for when the caller dies, from Supervise's
// locked thread, which lives as long as the run; then it checks that the
// caller did not die before the signal was armed. In a PID namespace's
// init the parent is outside (getppid is 0) and there is nothing to
// follow.
func followParent(chan<- os.Signal) error {
	ppid := os.Getppid()
	if ppid == 0 {
		trace.Printf("no parent to follow (init of a PID namespace)")
		return nil
	}
	return armParentDeath(ppid, syscall.SIGTERM)
}

// armChild gives the command the parent-death signal and a process group
// of its own.
func armChild(c Config, a *syscall.SysProcAttr) { c.arm(a) }

// below lists tether's subtree but skip, by the kernel's children lists.
func (r *run) below(skip int) []proc.Member { return proc.Host().Subtree(os.Getpid(), skip) }

// strays are the members that are not below tether: those in the run's
// cgroup that left it (a PID namespace the command set up itself).
func (r *run) strays() []proc.Member { return r.box.members() }

// subtreesOf lists the live descendants of pids.
func subtreesOf(pids []int) []proc.Member {
	var out []proc.Member
	for _, pid := range pids {
		out = append(out, proc.Host().Subtree(pid, 0)...)
	}
	return out
}

// beforeReap has nothing to do: the subreaper keeps the tree below tether.
func (r *run) beforeReap() {}
