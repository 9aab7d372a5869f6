//go:build linux || darwin

package watchdog

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/registry"
	"github.com/tetherproc/tether/internal/runtree"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// runIDVar holds the run id in every process of a run.
const runIDVar = marker.RunIDVar

// Watchdog is the supervisor's handle on its watchdog process: the write
// end of its pipe and the file of the tree's list. Every method of a nil
// Watchdog does nothing, so that a run without one needs no test of its
// own.
type Watchdog struct {
	pid     int
	runID   string // heads the list of the tree; "" for a host's
	w       *os.File
	members *os.File
	last    []byte // the list as last written, not written again unchanged
	reaped  bool   // it died early and was reaped already
}

// Spec is what a watchdog is started with.
type Spec struct {
	Path  string // the binary whose main runs Main when its first argument is Arg
	Shell string // runs the first stage where there is no waiter; "" or missing: the binary waits itself
	// RunID is the run's id, which every process of the run carries
	// as TETHER_RUN_ID: after the supervisor's death, each process whose
	// environment holds that entry is ended. It is handed over in the
	// list of the tree, never on the command line.
	RunID string
	Grace time.Duration // between TERM and KILL, as the supervisor's cleanup
	// Lines and Members are told it before it starts: a watchdog
	// started in place of one that died knows all the first one did
	// from its first moment.
	Lines   []string
	Members []procid.ID
	// Host has the watchdog watch every run of a host program, each told
	// to it as it begins (Watchdog.Run): RunID and Grace are not used,
	// and the binary waits itself (the host protocol is the Go reader's
	// alone).
	Host bool
}

// firstStage is one way to start the watchdog's first stage: the program,
// its arguments, and the descriptors it needs beyond the six every
// watchdog gets.
type firstStage struct {
	path  string
	argv  []string
	files []uintptr
}

// firstStages are the ways to start the watchdog, best first: unless the
// binary is to wait itself (no shell named), the waiter where there is
// one (waiter_linux.go), then the shell script; last, the binary waits
// itself.
func (s Spec) firstStages() []firstStage {
	if s.Host {
		return []firstStage{{path: s.Path, argv: []string{s.Path, Arg, hostMode}}}
	}
	args := []string{strconv.FormatInt(int64(s.Grace), 10)}
	var hs []firstStage
	if s.Shell != "" {
		if fd, err := waiterFD(); err == nil {
			// The waiter gets itself as fd 6, and the last argument
			// is a placeholder for the run's cgroup.
			hs = append(hs, firstStage{path: "/proc/self/fd/6",
				argv:  append(append([]string{Arg, openedExe(s.Path), Arg}, args...), ""),
				files: []uintptr{uintptr(fd)}})
		} else {
			trace.Printf("watchdog: no waiter: %v", err)
		}
		if _, err := os.Stat(s.Shell); err == nil {
			hs = append(hs, firstStage{path: s.Shell,
				argv: append([]string{Arg, "-c", watchScript, Arg, openedExe(s.Path)}, args...)})
		}
	}
	return append(hs, firstStage{path: s.Path, argv: append([]string{s.Path, Arg}, args...)})
}

// Start starts the second line of defence: a watcher in its own session
// holding the read end of a pipe whose write end only the supervisor
// holds. If the supervisor dies without saying it is done (SIGKILL, the
// OOM killer), the pipe reads EOF and the watchdog ends every process of
// the run. Start it before the command, so that there is no moment at
// which the command runs unwatched. It is the caller's child: the
// caller reaps it (its wait4(-1) does), and says so with [Watchdog.Reaped].
func Start(s Spec) (*Watchdog, error) {
	// Plain descriptors, not os.File: see internal/proc's plain reads.
	exe, err := unix.Open(s.Path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open watchdog %s: %w", s.Path, err)
	}
	defer unix.Close(exe)
	r, w, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("watchdog pipe: %w", err)
	}
	defer unix.Close(r)
	members, err := memberFile()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("watchdog member list: %w", err)
	}
	wd := &Watchdog{w: w, members: members}
	if !s.Host {
		wd.runID = s.RunID
	}
	// What it is to know from its first moment is in the pipe and the
	// list before it exists: a supervisor killed right after the fork
	// leaves it all the same.
	for _, line := range s.Lines {
		wd.tell(line)
	}
	wd.Record(s.Members)
	for _, h := range s.firstStages() {
		var pid int
		if pid, err = start(h, r, exe, members); err == nil {
			wd.pid = pid
			return wd, nil
		}
		trace.Printf("watchdog: start %s: %v", h.path, err)
	}
	w.Close()
	members.Close()
	return nil, fmt.Errorf("start watchdog %s: %w", s.Path, err)
}

// start forks one first stage: the pipe's read end as fd 3, the binary as 4,
// the member list as 5, then the stage's own.
func start(h firstStage, pipe, exe int, members *os.File) (int, error) {
	null, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("watchdog stdio: open %s: %w", os.DevNull, err)
	}
	defer unix.Close(null)
	// Its trace, when there is one, goes where the supervisor's does.
	env, stderr := []string{}, uintptr(null)
	if trace.On() {
		env, stderr = []string{trace.Var + "=1"}, os.Stderr.Fd()
	}
	// syscall, not os/exec: the supervisor's wait4(-1) reaps the
	// watchdog like every child, and os/exec would only add its own
	// bookkeeping (and a probe fork on first use) to the start-up.
	return syscall.ForkExec(h.path, h.argv, &syscall.ProcAttr{
		Dir:   "/", // keeps no directory busy
		Env:   env,
		Files: append([]uintptr{uintptr(null), uintptr(null), stderr, uintptr(pipe), uintptr(exe), members.Fd()}, h.files...),
		// Its own session: no terminal signal or group kill aimed at
		// tether's group reaches it.
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
}

// PID is the watchdog's process; 0 for nil.
func (wd *Watchdog) PID() int {
	if wd == nil {
		return 0
	}
	return wd.pid
}

// Reaped tells the handle that the watchdog died early and its status
// was collected: its PID may be another's from now on, and is never
// signalled or waited for again.
func (wd *Watchdog) Reaped() {
	if wd != nil {
		wd.reaped = true
	}
}

// Alive reports whether the watchdog is a process still to be counted
// with: started and not reaped.
func (wd *Watchdog) Alive() bool { return wd != nil && !wd.reaped }

// Stop ends the watchdog once the supervisor's own cleanup is done. The
// watchdog is this process's unreaped child, so its PID cannot have been
// recycled: KILL is safe, and does not wait on a watchdog still starting
// up. "done" is written first all the same, for a watchdog that reads it
// before the KILL lands.
func (wd *Watchdog) Stop() {
	if !wd.kill() {
		return
	}
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(wd.pid, &ws, 0, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// StopExiting is Stop for a process about to exit: the watchdog is
// killed and not waited for. Its end is collected by the process's own
// reaper once the process is gone (init, or the nearest subreaper, as
// for any orphan); the wait, some 0.3 ms on a small VM, was a twentieth
// of a tether run.
func (wd *Watchdog) StopExiting() { wd.kill() }

// kill tells the watchdog the run is done, closes the handle's ends and
// kills the watchdog, unless it was reaped already; it reports whether
// it killed it, and so whether it is to be waited for.
func (wd *Watchdog) kill() bool {
	if wd == nil {
		return false
	}
	wd.tell(lineDone)
	wd.w.Close()
	wd.members.Close()
	if wd.reaped {
		return false
	}
	_ = unix.Kill(wd.pid, unix.SIGKILL)
	return true
}

// Main is the watchdog's second stage: args are the grace in
// nanoseconds and, from the first stage, the run's cgroup or ""; file
// descriptor 3 is the pipe from the supervisor (already at EOF when a
// first stage handed over), 5 the list of the tree it last wrote, headed
// by the run's id. It returns the exit status.
func Main(args []string) int {
	if len(args) == 1 && args[0] == hostMode {
		return hostMain()
	}
	list := os.NewFile(5, "tether-members")
	runID := decodeRunID(readList(list))
	if len(args) > 0 && marker.IsRunID(args[0]) {
		// A first stage of an earlier build (the binary replaced at its
		// path on macOS) still names the run first.
		runID, args = args[0], args[1:]
	}
	// Nothing but a run id is taken: whatever the scan matches is ended,
	// and a broader entry (TETHER=1) would end every tethered process.
	if len(args) < 1 || len(args) > 2 || !marker.IsRunID(runID) {
		fmt.Fprintln(os.Stderr, "tether-watchdog: want GRACE_NS [CGROUP], and RUN_ID heading the list on fd 5")
		return 125
	}
	grace, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || grace < 0 {
		fmt.Fprintln(os.Stderr, "tether-watchdog: bad grace", args[0])
		return 125
	}
	// Nothing the supervisor's caller does to its terminal or group may
	// stop the cleanup.
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGPIPE)
	s, done := readLines(os.NewFile(3, "supervisor"))
	if done {
		return 0
	}
	if len(args) == 2 && args[1] != "" {
		s.cgroup = args[1] // what the first stage read
	}
	trace.Printf("watchdog: supervisor of run %s died; ending the run", runID)
	if s.group != 0 {
		_ = unix.Kill(-s.group, unix.SIGTERM)
	}
	g := cgroup.Open(s.cgroup)
	g.KillAll()
	if endRun(runIDVar+"="+runID, time.Duration(grace), readMembers(list), g) {
		// The run is over: its record, which its supervisor did not
		// live to remove, goes too.
		registry.Prune(runID, os.Getuid())
	}
	g.Release()
	return 0
}

// endRun terminates the run: once the supervisor is gone its tree is
// scattered, and three things still tie it together. The run's entry,
// which every process of it carries, unless it cleared or overwrote its
// environment; the list of the tree the supervisor last wrote, whose
// members (checked by start time) and their subtrees are ended whatever
// their environment says; and the run's cgroup, when it has one.
// Processes forked in the meantime are found by the next round. One
// empty round is not the end: a process in the middle of an execve
// cannot be told apart yet, and one forked a moment ago may not be
// listed yet, so the rounds go on until they have come back empty and
// settled for a quarter second. It reports whether every one is gone.
func endRun(entry string, grace time.Duration, recorded []procid.ID, g *cgroup.Group) bool {
	return endRuns([]string{entry}, grace, recorded, []*cgroup.Group{g})
}

// endRuns is endRun for several runs at once, the children of a host
// program: a process is ended when it carries any one of entries.
func endRuns(entries []string, grace time.Duration, recorded []procid.ID, groups []*cgroup.Group) bool {
	fs := proc.Host()
	sources := []runtree.Source{runtree.Carriers(fs, entries, os.Getuid()), runtree.Kept(fs, recorded)}
	for _, g := range groups {
		sources = append(sources, runtree.Cgroup(g))
	}
	return runtree.Tree{
		What:    "watchdog of " + strings.Join(entries, ", "),
		Sources: sources,
		Quiet:   250 * time.Millisecond,
	}.End(context.Background(), grace)
}
