//go:build linux && !tetherportable

package spawn

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
)

// This file holds what Linux gives a run beyond the portable path (the
// tetherportable build tag, and macOS): the parent-death signal, the
// child subreaper, and containment (contain.go).

// becomeSubreaper makes every orphan of the tree come back to tether.
// restore, never nil, puts the flag back as it was: a library caller's
// process is a subreaper for its runs and only for them. Runs side by
// side in one process share the flag: the first sets it, the last to end
// puts it back.
func becomeSubreaper() (restore func(), err error) {
	subreaperMu.Lock()
	defer subreaperMu.Unlock()
	if subreaperRuns == 0 {
		var was int32
		if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&was)), 0, 0, 0); err != nil {
			return func() {}, err
		}
		if was != 0 {
			return func() {}, nil // the program's own: never ours to clear
		}
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return func() {}, err
		}
	}
	subreaperRuns++
	return sync.OnceFunc(func() {
		subreaperMu.Lock()
		defer subreaperMu.Unlock()
		if subreaperRuns--; subreaperRuns == 0 {
			_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
		}
	}), nil
}

// subreaperRuns counts the runs that set the flag and have not ended.
var (
	subreaperMu   sync.Mutex
	subreaperRuns int
)

// followParent arms SIGTERM for when the caller dies, on Supervise's
// locked thread; then it checks that the caller did not die before the
// signal was armed. In a PID namespace's init the parent is outside
// (getppid is 0) and there is nothing to follow. The signal belongs to
// the thread, which goes back to the runtime when Supervise returns (and
// may exit with a goroutine of the caller's): restore, run on the same
// thread before it is unlocked, puts back what the thread had, so that a
// library caller's process is followed for the run and only for it.
func followParent(chan<- os.Signal) (restore func(), err error) {
	ppid := os.Getppid()
	if ppid == 0 {
		trace.Printf("no parent to follow (init of a PID namespace)")
		return func() {}, nil
	}
	var old int32
	if err := unix.Prctl(unix.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(&old)), 0, 0, 0); err != nil {
		return nil, &StartError{Status: 125, Err: fmt.Errorf("read parent-death signal: %w", err)}
	}
	disarm := func() { _ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(old), 0, 0, 0) }
	return disarm, armParentDeath(ppid, syscall.SIGTERM)
}

// armChild gives the command the parent-death signal and a process group
// of its own.
func armChild(c Config, a *syscall.SysProcAttr) { c.arm(a) }

// below lists tether's subtree but skip, by the kernel's children lists:
// as the process's sole reaper, all of it; otherwise the subtrees of its
// children that are the run's, and no other child of the program.
func (r *supervisor) below(skip int) []proc.Member {
	fs := proc.Host()
	if r.cfg.SoleReaper {
		return fs.Subtree(os.Getpid(), skip)
	}
	var out []proc.Member
	for _, c := range r.ownChildren() {
		if c.PID == skip {
			continue
		}
		if !c.zombie {
			out = append(out, c.Member)
		}
		out = append(out, fs.Subtree(c.PID, skip)...)
	}
	return out
}

// strays are the members that are not below tether: those in the run's
// cgroup that left it (a PID namespace the command set up itself).
func (r *supervisor) strays() []proc.Member { return r.group.Members() }

// beforeReap has nothing to do: the subreaper keeps the tree below tether.
func (r *supervisor) beforeReap() {}

// adoptsOrphans: the subreaper is given the orphans of the tree.
const adoptsOrphans = true
