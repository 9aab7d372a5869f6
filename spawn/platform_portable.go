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
func becomeSubreaper() (restore func(), err error) { return func() {}, nil }

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
	fs := proc.Host()
	if r.cfg.SoleReaper {
		return fs.Descendants(os.Getpid(), skip, pgid)
	}
	// The calling program's other children are not the run's: the
	// walk starts at the command.
	if r.done {
		return nil
	}
	var out []proc.Member
	if st, err := fs.Stat(r.child); err == nil && !st.Zombie() {
		out = append(out, proc.Member{PID: r.child, StartTime: st.StartTime})
	}
	return append(out, fs.DescendantsOf([]int{r.child}, skip, pgid)...)
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
	return append(ms, fs.SubtreesOf(roots)...)
}

// contain refuses a containment: it needs Linux's full path.
func (r *run) contain(path string, _ *syscall.ProcAttr) (string, []string, error) {
	if r.cfg.Contain != NoContainment {
		return "", nil, containFailed(r.cfg.Contain, []string{"cgroup and pidns: Linux only"})
	}
	return path, r.cfg.Args, nil
}

// Exec refuses: there is no parent-death signal to arm before the exec,
// and no process left to watch the command after it.
func Exec(Config) error {
	return &StartError{Status: 125, Err: errors.New("--exec needs a parent-death signal, which this platform does not have; run without --exec, which covers the command with the watchdog")}
}

// adoptsOrphans: with no subreaper, orphans go to init.
const adoptsOrphans = false
