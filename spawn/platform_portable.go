//go:build darwin || (linux && tetherportable)

package spawn

import (
	"errors"
	"os"
	"syscall"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/probe"
)

// This file is the portable supervision path: macOS's, and Linux's with
// the tetherportable build tag, which has the Linux build take it so that
// it runs in Linux CI. No parent-death signal (the caller is followed by
// an event, the command is covered by the watchdog alone should tether
// be killed), no child subreaper (the tree is found by parent links, its
// process group and its run id), no pidfd, no containment.

// becomeSubreaper has nothing to do: there is no subreaper.
func becomeSubreaper() error { return nil }

// followParent watches the caller and, when it dies, hands the loop a
// SIGTERM as its death would have sent one. The parent is read again
// once it is watched: one that died first is errParentGone. restore ends
// the watch, when Supervise returns.
func followParent(sigs chan<- os.Signal) (restore func(), err error) {
	ppid := os.Getppid()
	if ppid <= 1 {
		return func() {}, nil // nothing to follow: init, or already orphaned
	}
	stop, err := watchParent(ppid, func() { sigs <- syscall.SIGTERM })
	if err != nil {
		return func() {}, err
	}
	return stop, nil
}

// armChild gives the command a process group of its own.
func armChild(_ Config, a *syscall.SysProcAttr) { a.Setpgid = true }

// below lists tether's descendants but skip, by a walk of every
// process's parent link, and the members of the command's process group
// while the command is unreaped: once it is, its PID, and with it the
// group's number, may be another's.
func (r *run) below(skip int) []proc.Member {
	pgid := r.child
	if r.done {
		pgid = 0
	}
	return proc.Host().Descendants(os.Getpid(), skip, pgid)
}

// beforeReap writes the tree down while the command, exited but not yet
// reaped, still holds its PID: the group's members are on that list, for
// the cleanup, which no longer looks the group up by its number.
func (r *run) beforeReap() {
	if r.done || r.child == 0 {
		return
	}
	if st, err := proc.Host().Stat(r.child); err == nil && st.Zombie() {
		r.record()
	}
}

// strays are the processes of the run that left tether's tree: those
// still carrying its run id, and those on the list last written down
// (renamed or env-cleared ones, the command's group) that are still the
// same processes, with their descendants, from one pass over every
// process.
func (r *run) strays() []proc.Member {
	fs := proc.Host()
	ms, _ := fs.Scan([]string{probe.RunIDVar + "=" + r.cfg.RunID})
	var roots []int
	for _, m := range r.recorded {
		if st, err := fs.Stat(m.PID); err == nil && st.StartTime == m.StartTime && !st.Zombie() {
			ms = append(ms, m)
			roots = append(roots, m.PID)
		}
	}
	if len(roots) > 0 {
		ms = append(ms, fs.DescendantsOf(roots, 0, 0)...)
	}
	return ms
}

// subtreesOf lists the live descendants of pids.
func subtreesOf(pids []int) []proc.Member {
	if len(pids) == 0 {
		return nil
	}
	return proc.Host().DescendantsOf(pids, 0, 0)
}

// errNoContainment is why --contain fails here.
var errNoContainment = "cgroup and pidns: Linux only"

// container has nothing to hold on the portable path.
type container struct{}

func (r *run) contain(path string, _ *syscall.ProcAttr) (string, []string, error) {
	if r.cfg.Contain != NoContainment {
		return "", nil, &StartError{Status: 125, Err: &ContainError{Mode: r.cfg.Contain, Tried: []string{errNoContainment}}}
	}
	return path, r.cfg.Args, nil
}

func (r *run) startFailed(error) error                                 { return nil }
func (b *container) afterStart(*run)                                   {}
func (b *container) groupDir() string                                  { return "" }
func (b *container) statusOf(ws syscall.WaitStatus) syscall.WaitStatus { return ws }
func (b *container) stopReports() chan syscall.Signal                  { return nil }
func (b *container) stillStopped() bool                                { return false }
func (b *container) signalCommand(syscall.Signal) bool                 { return false }
func (b *container) commandGroup(int) int                              { return 0 }
func (b *container) members() []proc.Member                            { return nil }
func (b *container) kill()                                             {}
func (b *container) release()                                          {}

// groupBox has no cgroup to hand the watchdog.
func groupBox(string) *container { return nil }

// Exec refuses: there is no parent-death signal to arm before the exec,
// and no process left to watch the command after it.
func Exec(Config) error {
	return &StartError{Status: 125, Err: errors.New("--exec needs a parent-death signal, which this platform does not have; run without --exec, which covers the command with the watchdog")}
}

// Pick finds no containment: it needs Linux.
func Pick(c Containment, _ string) (Containment, error) {
	return NoContainment, &ContainError{Mode: c, Tried: []string{errNoContainment}}
}
