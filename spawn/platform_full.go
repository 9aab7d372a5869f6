//go:build linux && !tetherportable

package spawn

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/pidns"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/runtree"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// This file holds what Linux gives a run beyond the portable path (the
// tetherportable build tag, and macOS): the parent-death signal, the
// child subreaper, containment, and exec in place.

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
		return nil, &StartError{Err: fmt.Errorf("read parent-death signal: %w", err)}
	}
	disarm := func() { _ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(old), 0, 0, 0) }
	return disarm, armParentDeath(ppid, syscall.SIGTERM)
}

// armChild gives the command the parent-death signal and a process group
// of its own, the two things every tethered child is started with.
func armChild(c Options, a *syscall.SysProcAttr) {
	a.Pdeathsig = c.Signal
	a.Setpgid = true
}

// platformGuarantees are the full path's: the kernel's ties.
var platformGuarantees = Guarantees{ParentDeathSignal: true, Cgroups: true}

// pidfds says this kernel gives pidfds (Linux 5.3), which signals go
// through.
func pidfds() bool { ok, _ := pidfd.Pidfds(); return ok }

// cgroupsHere: cgroups are Linux's, and the machine says the rest.
func cgroupsHere() error { return nil }

// bornIn has the child born in the cgroup open at fd.
func bornIn(a *syscall.SysProcAttr, fd int) { a.UseCgroupFD, a.CgroupFD = true, fd }

// spawnerTID is the spawner thread's id: a child started with
// CLONE_PARENT by a Host's child is this thread's child, which the
// search of strays among the ancestors' children lists reads.
var spawnerTID []int

// noteSpawner notes the calling thread as the spawner's.
func noteSpawner() { spawnerTID = []int{unix.Gettid()} }

// lastPID is the last PID the kernel handed out in this namespace, for
// the search of strays by birth.
func lastPID() (int, bool) { return proc.Host().LastPID() }

// lastPIDs reports whether the last PID handed out can be read here,
// asked once: the search by birth needs it at every look.
var lastPIDs = sync.OnceValue(func() bool { _, ok := lastPID(); return ok })

// strays searches for the strays of cs: by birth, from and to values of
// proc.LastPID read before their trees were listed, where byBirth says
// the values hold and the span is not too long (spanned); else among the
// children of the program's line of ancestors, or every process where
// those cannot be read (full).
func (h *Host) strays(cs []*Child, from, to int, byBirth bool, known func(int) bool) (vs []ptree.Valued, executing []int, spanned, full bool) {
	fs := proc.Host()
	since, entries := strayed(cs)
	if byBirth {
		if vs, executing, ok := ptree.StraysBorn(fs, from, to, since, entries, marker.RunIDVar, known); ok {
			return vs, executing, true, false
		}
	}
	vs, executing, full = ptree.Strays(fs, since, entries, marker.RunIDVar, known, spawnerTID)
	return vs, executing, false, full
}

// below is tether's subtree but the watchdog's, by the kernel's
// children lists: as the process's sole reaper, all of it; otherwise the
// subtrees of its children that are the run's, and no other child of the
// program.
func (r *supervisor) below() runtree.Source {
	fs := proc.Host()
	if r.cfg.SoleReaper {
		return runtree.Below(fs, os.Getpid(), r.skip)
	}
	return runtree.SourceFunc(func() ([]procid.ID, bool) {
		var out []procid.ID
		skip := r.skip()
		for _, c := range r.ownChildren() {
			if c.PID == skip {
				continue
			}
			if !c.zombie {
				out = append(out, c.ID)
			}
			out = append(out, ptree.Subtree(fs, c.PID, skip)...)
		}
		return out, false
	})
}

// strays are the members that are not below tether: those in the run's
// cgroup that left it (a PID namespace the command set up itself).
func (r *supervisor) strays() runtree.Source { return runtree.Cgroup(r.group) }

// beforeReap, as the process's sole reaper, has nothing to do: the
// subreaper keeps the tree below tether. Otherwise it writes the tree
// down while the command, exited but not yet reaped, still holds its PID
// and with it its group's number: the group's members that renamed
// themselves or cleared their environment are then on the list the
// cleanup follows, also when no tick has listed them yet.
func (r *supervisor) beforeReap() {
	if r.sole || !r.unreaped() {
		return
	}
	if st, err := proc.Host().Stat(r.child); err == nil && st.Zombie() {
		r.record()
	}
}

// adoptsOrphans: the subreaper is given the orphans of the tree.
const adoptsOrphans = true

// tickState is empty on the full path: the tree is read from the
// kernel's children lists at each listing, and nothing is kept between
// two (see platform_portable.go for the portable path's).
type tickState struct{}

// scanFromNow has nothing to do: no listing scans every environment.
func (r *supervisor) scanFromNow() {}

// contain sets the child up to start in its container: born in the run's
// cgroup, or as the init of new namespaces, running the command. It
// returns the path and arguments to start.
func (r *supervisor) contain(path string, args []string, attr *syscall.ProcAttr) (string, []string, error) {
	mode := r.cfg.Contain
	if mode == NoContainment {
		return path, args, nil
	}
	if mode == ContainAuto || mode == ContainCgroup {
		err := r.newCgroup()
		if err == nil {
			attr.Sys.UseCgroupFD, attr.Sys.CgroupFD = true, r.group.FD()
			trace.Printf("contained in cgroup %s", r.group.Path())
			return path, args, nil
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
		if err == nil && !reexecAllowed() {
			err = errors.New("no binary to run as the namespace's init (the program's main does not call spawn.Init)")
		}
		if err == nil {
			var argv []string
			if r.init, argv, err = pidns.Prepare(self, path, args, r.cfg.Grace, r.stdio.extraTargets(), attr); err == nil {
				trace.Printf("contained in a new PID namespace, under tether's init")
				if len(r.tried) > 0 && r.cfg.OnContain != nil {
					r.cfg.OnContain(ContainPIDNamespace, r.tried)
				}
				return self, argv, nil
			}
		}
		r.tried = append(r.tried, "pidns: "+err.Error())
	}
	return "", nil, containFailed(mode, r.tried)
}

// extraTargets are the numbers the ExtraFiles that are not nil are to
// have in the command, which a PID namespace's init gives them: the init
// gets them one after the other (extraFDs dense), since a gap in its
// own numbers would be filled by its runtime's descriptors.
func (s *stdio) extraTargets() []int {
	var ts []int
	for i, f := range s.files[3:] {
		if f != nil {
			ts = append(ts, 3+i)
		}
	}
	return ts
}

// Exec replaces the calling process with cmd, as setpriv --pdeathsig
// does: the parent-death signal is armed on the calling process toward its
// own parent (unless opts.OutliveParent), the parent is checked to be
// alive still, the markers are stamped with the parent as supervisor, and
// the command is executed in place, keeping the PID. There is no
// supervisor process, so no watchdog and no cleanup of grandchildren.
//
// Of cmd, Exec reads Path, Args, Env and Dir; the command keeps the
// process's own descriptors, so Stdin, Stdout, Stderr and ExtraFiles
// must be nil (and SysProcAttr, which only a fork applies). Exec returns
// only on failure: a *[StartError].
func Exec(cmd *exec.Cmd, opts ExecOptions) error {
	if err := checkExec(cmd); err != nil {
		return err
	}
	if err := opts.Validate(); err != nil {
		return &StartError{Err: err}
	}
	path, argv := cmd.Path, commandLine(cmd)
	env := cmd.Environ()
	if env == nil {
		env = []string{}
	}
	ppid := os.Getppid()
	cfg := Options{Stamp: opts.Stamp, Markers: opts.Markers, Signal: opts.Signal, OutliveParent: opts.OutliveParent}
	var err error
	if cfg.Supervisor.PID == 0 {
		// A namespace's init has no visible parent; it supervises itself.
		if cfg.Supervisor, err = selfOrParent(ppid > 0); err != nil {
			return &StartError{Err: err}
		}
	}
	if cfg, err = cfg.resolve(path); err != nil {
		return &StartError{Err: err}
	}
	env = cfg.environ(env)
	if cmd.Dir != "" {
		// The process's own directory: put back should the exec fail.
		was, err := os.Getwd()
		if err != nil {
			return &StartError{Err: fmt.Errorf("spawn: Exec: %s: %w", path, err)}
		}
		if err := os.Chdir(cmd.Dir); err != nil {
			return &StartError{Err: fmt.Errorf("spawn: Exec: %s: %w", path, err)}
		}
		defer func() { _ = os.Chdir(was) }() // reached only when the exec failed
	}

	// The parent-death signal belongs to the thread that sets it, and
	// execve keeps the calling thread's: set and exec on one thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if !cfg.OutliveParent && ppid > 0 {
		if err := armParentDeath(ppid, cfg.Signal); err == errParentGone {
			// Deliver the signal as the kernel would have.
			_ = unix.Kill(os.Getpid(), cfg.Signal)
			return &StartError{Err: fmt.Errorf("parent %d died before the command started: %w", ppid, ErrParentGone)}
		} else if err != nil {
			return err
		}
	}
	trace.Printf("exec %s in place, run %s", path, cfg.RunID)
	err = syscall.Exec(path, argv, env)
	return execFailed(path, err)
}

// armParentDeath arms sig for when ppid dies, on the calling thread, then
// checks that ppid did not die before it was armed: errParentGone.
func armParentDeath(ppid int, sig syscall.Signal) error {
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(sig), 0, 0, 0); err != nil {
		return &StartError{Err: fmt.Errorf("arm parent-death signal: %w", err)}
	}
	if os.Getppid() != ppid {
		trace.Printf("parent %d died before the parent-death signal was armed", ppid)
		return errParentGone
	}
	trace.Printf("following parent %d: %s when it dies", ppid, unix.SignalName(sig))
	return nil
}

// forkExec starts the command, born in the run's cgroup where it has
// one. Where the kernel cannot start it there (clone3 with
// CLONE_INTO_CGROUP: Linux 5.7; refused by some container sandboxes), it
// is started as tether's own binary, which enters the group before it
// executes the command in place (cgroup.EnterMain): nothing of it runs
// outside, and it cannot fork first. A refused clone3 makes no child, so
// the start is simply tried first.
func (r *supervisor) forkExec(path string, attr *syscall.ProcAttr) (int, error) {
	if !attr.Sys.UseCgroupFD {
		return syscall.ForkExec(path, r.argv, attr)
	}
	pid, err := syscall.ForkExec(path, r.argv, attr)
	why := cgroup.Refusal(err)
	if why == nil {
		return pid, err
	}
	self := selfPath()
	if !reexecAllowed() {
		return 0, containFailed(r.cfg.Contain, append(r.tried, "cgroup: "+why.Error()+", and no binary to enter the group with first (the program's main does not call spawn.Init)"))
	}
	procs, err := r.group.ProcsFile()
	if err != nil {
		return 0, containFailed(r.cfg.Contain, append(r.tried, "cgroup: "+err.Error()))
	}
	defer procs.Close()
	enter := *attr
	sys := *attr.Sys
	sys.UseCgroupFD, sys.CgroupFD = false, 0
	enter.Sys = &sys
	enter.Files = append(slices.Clip(attr.Files), procs.Fd())
	trace.Printf("%v: %s enters cgroup %s before it runs", why, path, r.group.Path())
	// argv[0] names the step in ps; argv[1] is what Init dispatches on;
	// the group's file follows the command's own descriptors.
	procsFD := strconv.Itoa(len(enter.Files) - 1)
	return syscall.ForkExec(self, append([]string{cgroup.EnterArg, cgroup.EnterArg, procsFD, path}, r.argv...), &enter)
}
