//go:build linux || darwin

package spawn

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/probe"
)

// watchdogDone is written by the supervisor when it ends normally.
const watchdogDone = 'd'

// watchdog is the supervisor's handle on its watchdog process.
type watchdog struct {
	pid int
	w   *os.File
	// members holds the last list of the tree the supervisor wrote for
	// the watchdog: "PID START" lines.
	members *os.File
	last    []byte
	// reaped says the watchdog died early and was reaped already.
	reaped bool
}

// watchScript is the watchdog while the supervisor lives: a shell, a
// fraction of a Go program's start-up time and memory, blocked on the pipe
// (fd 3). The supervisor writes "g PGID" there once the command runs, "g-"
// once it is reaped, "c DIR" when the run has a cgroup, and "d" when it is
// done. Only if the supervisor dies without saying it is done does the
// shell act: it sends TERM to the command's group with its built-in kill
// and kills the run's cgroup whole by writing its cgroup.kill, neither of
// which needs a new process (a machine out of processes is one way a
// supervisor dies), then hands over to the program itself ($1: on Linux
// fd 4, opened before the supervisor could die), which ends the rest of
// the run. Signals aimed at tether's terminal or group are ignored, and
// stay ignored across the exec.
const watchScript = `trap '' HUP INT QUIT TERM PIPE
x=$1
shift
g= c=
while read -r word <&3; do
	case $word in
	d) exit 0 ;;
	g-) g= ;;
	g\ *) g=${word#g } ;;
	c\ *) c=${word#c } ;;
	esac
done
[ -n "$g" ] && kill -TERM -"$g" 2>/dev/null
[ -n "$c" ] && { echo 1 >"$c/cgroup.kill"; } 2>/dev/null
exec "$x" ` + WatchdogArg + ` "$@" "$c"`

// watchdogSpec is what a watchdog is started with.
type watchdogSpec struct {
	path  string // the binary that runs WatchdogMain
	shell string // runs the waiting half; "" or missing: the binary waits itself
	runID string
	grace time.Duration
}

// half is one way to start the watchdog's waiting half: the program,
// its arguments, and the descriptors it needs beyond the six every
// watchdog gets.
type half struct {
	path  string
	argv  []string
	files []uintptr
}

// halves are the ways to start the watchdog, best first: unless the
// binary is to wait itself (no shell named), the waiter where there is
// one (waiter_linux.go), then the shell script; last, the binary waits
// itself.
func (s watchdogSpec) halves() []half {
	args := []string{s.runID, strconv.FormatInt(int64(s.grace), 10)}
	var hs []half
	if s.shell != "" {
		if fd, err := waiterFD(); err == nil {
			// The waiter gets itself as fd 6, and the last argument
			// is a placeholder for the run's cgroup.
			hs = append(hs, half{path: "/proc/self/fd/6",
				argv:  append(append([]string{WatchdogArg, openedExe(s.path), WatchdogArg}, args...), ""),
				files: []uintptr{uintptr(fd)}})
		} else {
			trace.Printf("watchdog: no waiter: %v", err)
		}
		if _, err := os.Stat(s.shell); err == nil {
			hs = append(hs, half{path: s.shell,
				argv: append([]string{WatchdogArg, "-c", watchScript, WatchdogArg, openedExe(s.path)}, args...)})
		}
	}
	return append(hs, half{path: s.path, argv: append([]string{s.path, WatchdogArg}, args...)})
}

// startWatchdog starts the second line of defence: a watcher in its own
// session holding the read end of a pipe whose write end only the
// supervisor holds. If the supervisor dies without saying it is done
// (SIGKILL, the OOM killer), the pipe reads EOF and the watchdog ends
// every process that carries the run id. It is started before the
// command, so there is no moment at which a command runs unwatched.
func startWatchdog(s watchdogSpec) (*watchdog, error) {
	// Plain descriptors, not os.File: see internal/proc's plain reads.
	exe, err := unix.Open(s.path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open watchdog %s: %w", s.path, err)
	}
	defer unix.Close(exe)
	null, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("watchdog stdio: open %s: %w", os.DevNull, err)
	}
	defer unix.Close(null)
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
	// Its trace, when there is one, goes where the supervisor's does.
	env, stderr := []string{}, uintptr(null)
	if trace.On() {
		env, stderr = []string{trace.Var + "=1"}, os.Stderr.Fd()
	}
	attr := &syscall.ProcAttr{
		Dir: "/", // keeps no directory busy
		Env: env,
		// Its own session: no terminal signal or group kill aimed at
		// tether's group reaches it.
		Sys: &syscall.SysProcAttr{Setsid: true},
	}
	files := []uintptr{uintptr(null), uintptr(null), stderr, uintptr(r), uintptr(exe), members.Fd()}
	// syscall, not os/exec: the supervisor's wait4(-1) reaps the
	// watchdog like every child, and os/exec would only add its own
	// bookkeeping (and a probe fork on first use) to the start-up.
	var pid int
	for _, h := range s.halves() {
		attr.Files = append(files, h.files...)
		if pid, err = syscall.ForkExec(h.path, h.argv, attr); err == nil {
			break
		}
		trace.Printf("watchdog: start %s: %v", h.path, err)
	}
	if err != nil {
		w.Close()
		members.Close()
		return nil, fmt.Errorf("start watchdog %s: %w", s.path, err)
	}
	return &watchdog{pid: pid, w: w, members: members}, nil
}

// tell writes one line to the watchdog's pipe.
func (wd *watchdog) tell(line string) {
	_, _ = wd.w.Write([]byte(line + "\n"))
}

// record writes the tree as it is now for the watchdog, which reads it
// only if the supervisor dies: the members that no environment scan can
// find (renamed, env-cleared) are ended from it, with their subtrees.
func (wd *watchdog) record(ms []proc.Member) {
	var b []byte
	for _, m := range ms {
		b = strconv.AppendInt(b, int64(m.PID), 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, m.StartTime, 10)
		b = append(b, '\n')
	}
	// The reader stops here: what an older, longer list left behind a
	// write cut short by SIGKILL is never read.
	b = append(b, "end\n"...)
	if bytes.Equal(b, wd.last) {
		return
	}
	wd.last = b
	_, _ = wd.members.WriteAt(b, 0)
	_ = wd.members.Truncate(int64(len(b)))
}

// stop ends the watchdog once the supervisor's own cleanup is done. The
// watchdog is this process's unreaped child, so its PID cannot have been
// recycled: KILL is safe, and does not wait on a watchdog still starting
// up. "done" is written first all the same, for a watchdog that reads it
// before the KILL lands.
func (wd *watchdog) stop() {
	wd.tell(string(watchdogDone))
	wd.w.Close()
	wd.members.Close()
	if wd.reaped {
		return
	}
	_ = unix.Kill(wd.pid, unix.SIGKILL)
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(wd.pid, &ws, 0, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// WatchdogMain is the watchdog: args are the run id, the grace in
// nanoseconds and, from the shell half, the run's cgroup or ""; file
// descriptor 3 is the pipe from the supervisor (already at EOF when the
// shell half handed over), 5 the list of the tree it last wrote. It
// returns the exit status.
func WatchdogMain(args []string) int {
	if len(args) < 2 || len(args) > 3 || probe.ValidateRunID(args[0]) != nil {
		fmt.Fprintln(os.Stderr, "tether-watchdog: want RUN_ID GRACE_NS [CGROUP]")
		return 125
	}
	group := ""
	if len(args) == 3 {
		group = args[2]
	}
	grace, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || grace < 0 {
		fmt.Fprintln(os.Stderr, "tether-watchdog: bad grace", args[1])
		return 125
	}
	// Nothing the supervisor's caller does to its terminal or group may
	// stop the cleanup.
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGPIPE)
	lines := bufio.NewScanner(os.NewFile(3, "supervisor"))
	for lines.Scan() {
		if lines.Text() == string(watchdogDone) {
			return 0
		}
		if dir, ok := strings.CutPrefix(lines.Text(), "c "); ok {
			group = dir
		}
	}
	trace.Printf("watchdog: supervisor of run %s died; ending the run", args[0])
	box := groupBox(group)
	box.kill()
	endRun(args[0], time.Duration(grace), readMembers(os.NewFile(5, "tether-members")), box)
	box.release()
	return 0
}

// readMembers reads the list of the tree the supervisor last wrote.
func readMembers(f *os.File) []proc.Member {
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<30))
	if err != nil {
		return nil
	}
	var ms []proc.Member
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if string(line) == "end" {
			break
		}
		pid, start, ok := bytes.Cut(line, []byte{' '})
		p, err1 := strconv.Atoi(string(pid))
		s, err2 := strconv.ParseUint(string(start), 10, 64)
		if ok && err1 == nil && err2 == nil && p > 0 {
			ms = append(ms, proc.Member{PID: p, StartTime: s})
		}
	}
	return ms
}

// endRun terminates the run: once the supervisor is gone its tree is
// scattered, and two things still tie it together. The run id, which
// every process of it carries, unless it cleared or overwrote its
// environment; and the list of the tree the supervisor last wrote, whose
// members (checked by start time) and their subtrees are ended whatever
// their environment says. Processes forked in the meantime are found by
// the next round. One empty round is not the end: a process in the middle
// of an execve cannot be told apart yet, and one forked a moment ago may
// not be listed yet, so the rounds go on until they have come back empty
// and settled for a quarter second.
func endRun(runID string, grace time.Duration, recorded []proc.Member, box *container) {
	fs := proc.Host()
	entries := []string{probe.RunIDVar + "=" + runID}
	proc.Escalation{
		Grace: grace,
		List: func() ([]proc.Member, bool) {
			ms, executing := fs.Scan(entries)
			seen := map[proc.Member]bool{}
			for _, m := range ms {
				seen[m] = true
			}
			var alive []proc.Member
			var roots []int
			for _, m := range recorded {
				if st, err := fs.Stat(m.PID); err == nil && st.StartTime == m.StartTime && !st.Zombie() {
					alive = append(alive, m)
					roots = append(roots, m.PID)
				}
			}
			for _, d := range append(alive, subtreesOf(roots)...) {
				if !seen[d] {
					seen[d] = true
					ms = append(ms, d)
				}
			}
			for _, m := range box.members() {
				if !seen[m] {
					seen[m] = true
					ms = append(ms, m)
				}
			}
			return ms, len(executing) > 0
		},
		Send:    fs.Signal,
		KillAll: box.kill,
		Wait:    func(deadline time.Time) { time.Sleep(min(10*time.Millisecond, max(0, time.Until(deadline)))) },
		Quiet:   250 * time.Millisecond,
		What:    "watchdog of run " + runID,
	}.Run()
}
