//go:build linux || darwin

package watchdog

import (
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/registry"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// A host program (spawn.Host) starts many children over its life, each a
// run of its own, and has one watchdog for them all: the process count
// of one watchdog per child would be the cost of every child. It speaks
// a protocol of its own on the same pipe, each line about one run:
//
//	r RUNID GRACE  a run begins: its processes carry RUNID; GRACE is
//	               its time between TERM and KILL, in nanoseconds
//	g RUNID PGID   the run's child is a process group's leader
//	g- RUNID       the child is gone: the group's number may be another's
//	c RUNID DIR    the run's cgroup, before its child is born in it
//	x RUNID        the run is over (stopped by the host): nothing of it
//	               is to be ended
//	d              done: the host closed, nothing is to be ended
//
// A line about a run that was not begun, or that cannot be read, is
// skipped, as in the one-run protocol. The list of the trees (fd 5) is
// the union of every run's. Only the Go second stage reads this
// protocol: a host has one watchdog, and what a waiter saves is per run.

// hostMode is the argument after Arg that starts a host's watchdog.
const hostMode = "host"

// hostRun is what the host said of one run.
type hostRun struct {
	grace  time.Duration
	group  int
	cgroup string
}

// readHostLines reads the host's lines until the pipe's end: done when it
// said so.
func readHostLines(r io.Reader) (runs map[string]*hostRun, done bool) {
	runs = map[string]*hostRun{}
	// Room for the longest line: a cgroup line with its run id.
	done = eachLine(r, len("c ")+32+1+pathMax+1, func(line string) bool { return applyHost(runs, line) })
	return runs, done
}

// applyHost takes one whole line of the host protocol: true for done.
func applyHost(runs map[string]*hostRun, line string) bool {
	if line == lineDone {
		return true
	}
	word, rest, _ := strings.Cut(line, " ")
	id, value, _ := strings.Cut(rest, " ")
	if !marker.IsRunID(id) {
		return false
	}
	if word == "r" {
		grace, err := strconv.ParseInt(value, 10, 64)
		if err == nil && grace >= 0 && runs[id] == nil {
			runs[id] = &hostRun{grace: time.Duration(grace)}
		}
		return false
	}
	run := runs[id]
	if run == nil {
		return false
	}
	switch word {
	case "g":
		// Never 1 or less: kill(-1) would be every process there is.
		if n, ok := groupNumber(value); ok && n > 1 {
			run.group = n
		}
	case "g-":
		if value == "" && !strings.HasSuffix(rest, " ") {
			run.group = 0
		}
	case "c":
		if value != "" && len(value) < pathMax {
			run.cgroup = value
		}
	case "x":
		if value == "" && !strings.HasSuffix(rest, " ") {
			delete(runs, id)
		}
	}
	return false
}

// StartHost starts the watchdog of a host program: path is the program,
// whose main hands control to [Main] when its first argument is [Arg].
// It watches the runs of runs from its first moment (a watchdog started
// in place of one that died), and then each it is told of
// ([Watchdog.Run]); members is the list of their trees.
func StartHost(path string, runs []HostRun, members []procid.ID) (*Watchdog, error) {
	var lines []string
	for _, r := range runs {
		lines = append(lines, runLine(r.RunID, r.Grace))
		if r.Cgroup != "" {
			lines = append(lines, "c "+r.RunID+" "+r.Cgroup)
		}
		if r.Group > 1 {
			lines = append(lines, "g "+r.RunID+" "+strconv.Itoa(r.Group))
		}
	}
	return Start(Spec{Path: path, Host: true, Lines: lines, Members: members})
}

// HostRun is one run a host's watchdog is to know from its start.
type HostRun struct {
	RunID  string
	Grace  time.Duration
	Group  int    // the child's process group, 0 when it is reaped
	Cgroup string // "" for none
}

func runLine(runID string, grace time.Duration) string {
	return "r " + runID + " " + strconv.FormatInt(int64(grace), 10)
}

// Run tells a host's watchdog that a run begins, before its child is
// started: should the host die, every process carrying runID is ended,
// with grace between TERM and KILL.
func (wd *Watchdog) Run(runID string, grace time.Duration) { wd.tell(runLine(runID, grace)) }

// RunGroup tells a host's watchdog the process group of a run's child,
// once it runs.
func (wd *Watchdog) RunGroup(runID string, pgid int) {
	wd.tell("g " + runID + " " + strconv.Itoa(pgid))
}

// RunGroupGone tells a host's watchdog that a run's child is reaped:
// its group's number may be another's from now on.
func (wd *Watchdog) RunGroupGone(runID string) { wd.tell("g- " + runID) }

// RunCgroup tells a host's watchdog the cgroup of a run, before its
// child is born in it.
func (wd *Watchdog) RunCgroup(runID, dir string) {
	if dir != "" {
		wd.tell("c " + runID + " " + dir)
	}
}

// RunOver tells a host's watchdog that a run is over, its processes
// ended by the host itself: nothing of it is to be ended any more.
func (wd *Watchdog) RunOver(runID string) { wd.tell("x " + runID) }

// hostMain is the watchdog of a host program: it waits for the pipe's
// end, and should the host die without saying it is done, ends every
// run it was told of and not told is over, as Main ends one.
func hostMain() int {
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGPIPE)
	runs, done := readHostLines(os.NewFile(3, "host"))
	if done || len(runs) == 0 {
		return 0
	}
	ids := make([]string, 0, len(runs))
	for id := range runs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	trace.Printf("watchdog: host died; ending its %d runs", len(ids))
	// The groups and cgroups first, all at once, before the scan: the
	// children's own parent-death signals are landing meanwhile.
	var entries []string
	var groups []*cgroup.Group
	var grace time.Duration
	for _, id := range ids {
		run := runs[id]
		if run.group != 0 {
			_ = unix.Kill(-run.group, unix.SIGTERM)
		}
		g := cgroup.Open(run.cgroup)
		g.KillAll()
		groups = append(groups, g)
		entries = append(entries, runIDVar+"="+id)
		grace = max(grace, run.grace)
	}
	if endRuns(entries, grace, readMembers(os.NewFile(5, "tether-members")), groups) {
		for _, id := range ids {
			registry.Prune(id, os.Getuid())
		}
	}
	for _, g := range groups {
		g.Release()
	}
	return 0
}
