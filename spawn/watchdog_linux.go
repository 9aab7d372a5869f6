package spawn

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/probe"
)

// watchdogDone is written by the supervisor when it ends normally.
const watchdogDone = 'd'

// watchdog is the supervisor's handle on its watchdog process.
type watchdog struct {
	pid int
	w   *os.File
}

// watchScript is the watchdog while the supervisor lives: a shell, a
// fraction of a Go program's start-up time and memory, blocked on the pipe
// (fd 3). Only if the supervisor dies without saying it is done does the
// program itself (fd 4, opened before the supervisor could die) take over
// and end the run. Signals aimed at tether's terminal or group are ignored,
// and stay ignored across the exec.
const watchScript = `trap '' HUP INT QUIT TERM PIPE
read -r word <&3
[ "$word" = d ] && exit 0
exec /proc/self/fd/4 ` + WatchdogArg + ` "$@"`

// startWatchdog starts the second line of defence: a watcher in its own
// session holding the read end of a pipe whose write end only the
// supervisor holds. If the supervisor dies without saying it is done
// (SIGKILL, the OOM killer), the pipe reads EOF and the watchdog ends
// every process that carries the run id. It is started before the
// command, so there is no moment at which a command runs unwatched.
func startWatchdog(path, runID string, grace time.Duration) (*watchdog, error) {
	exe, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open watchdog %s: %w", path, err)
	}
	defer exe.Close()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("watchdog stdio: %w", err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("watchdog pipe: %w", err)
	}
	defer r.Close()
	args := []string{runID, strconv.FormatInt(int64(grace), 10)}
	argv := append([]string{path, WatchdogArg}, args...)
	if _, err := os.Stat(shell); err == nil {
		path = shell
		argv = append([]string{WatchdogArg, "-c", watchScript, WatchdogArg}, args...)
	}
	// syscall, not os/exec: the supervisor's wait4(-1) reaps the
	// watchdog like every child, and os/exec would only add its own
	// bookkeeping (and a probe fork on first use) to the start-up.
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   []string{},
		Files: []uintptr{null.Fd(), null.Fd(), null.Fd(), r.Fd(), exe.Fd()},
		// Its own session: no terminal signal or group kill aimed at
		// tether's group reaches it.
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("start watchdog %s: %w", path, err)
	}
	return &watchdog{pid: pid, w: w}, nil
}

// shell runs the waiting half of the watchdog; without it, the program
// itself waits. A variable only so that a test can take it away.
var shell = "/bin/sh"

// stop ends the watchdog once the supervisor's own cleanup is done. The
// watchdog is this process's unreaped child, so its PID cannot have been
// recycled: KILL is safe, and does not wait on a watchdog still starting
// up. "done" is written first all the same, for a watchdog that reads it
// before the KILL lands.
func (wd *watchdog) stop() {
	_, _ = wd.w.Write([]byte{watchdogDone, '\n'})
	wd.w.Close()
	_ = unix.Kill(wd.pid, unix.SIGKILL)
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(wd.pid, &ws, 0, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// WatchdogMain is the watchdog: args are the run id and the grace in
// nanoseconds; file descriptor 3 is the pipe from the supervisor (already
// at EOF when the shell half handed over). It returns the exit status.
func WatchdogMain(args []string) int {
	if len(args) != 2 || probe.ValidateRunID(args[0]) != nil {
		fmt.Fprintln(os.Stderr, "tether-watchdog: want RUN_ID GRACE_NS")
		return 125
	}
	grace, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || grace < 0 {
		fmt.Fprintln(os.Stderr, "tether-watchdog: bad grace", args[1])
		return 125
	}
	// Nothing the supervisor's caller does to its terminal or group may
	// stop the cleanup.
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGPIPE)
	pipe := os.NewFile(3, "supervisor")
	var b [1]byte
	n, _ := io.ReadFull(pipe, b[:])
	if n == 1 && b[0] == watchdogDone {
		return 0
	}
	endRun(args[0], time.Duration(grace))
	return 0
}

// endRun terminates every process that carries the run id: TERM, up to
// grace for them to go, then KILL, until none is left. Processes forked in
// the meantime carry the id too and are found by the next round. One empty
// scan is not the end: a process in the middle of an execve reads as
// having no environment, and one forked a moment ago may not be listed
// yet, so the scans go on until they have come back empty, with no exec
// in progress anywhere, for quietFor.
func endRun(runID string, grace time.Duration) {
	const quietFor = 250 * time.Millisecond
	entry := probe.RunIDVar + "=" + runID
	deadline := time.Now().Add(grace)
	giveUp := deadline.Add(10 * time.Second)
	termed := map[member]bool{}
	var quietSince time.Time
	for time.Now().Before(giveUp) {
		ms, executing := findRun(entry)
		if len(ms) == 0 && !executing {
			if quietSince.IsZero() {
				quietSince = time.Now()
			} else if time.Since(quietSince) >= quietFor {
				return
			}
		} else {
			quietSince = time.Time{}
		}
		kill := time.Now().After(deadline)
		for _, m := range ms {
			switch {
			case kill:
				signalMember(m, syscall.SIGKILL)
			case !termed[m]:
				signalMember(m, syscall.SIGTERM)
				termed[m] = true
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// findRun scans /proc for live processes whose environment holds entry
// exactly: once the supervisor is gone, its tree is scattered and the run
// id is the only thing that still ties it together.
//
// executing says that some process was in the middle of an execve and
// could not be told apart yet.
func findRun(entry string) (out []member, executing bool) {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil, false
	}
	names, _ := dir.Readdirnames(-1)
	dir.Close()
	self := os.Getpid()
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		env, err := probe.ReadEnviron(pid)
		if errors.Is(err, probe.ErrExecuting) {
			// It may be one of the run's: the scan is not empty.
			executing = true
			continue
		}
		if err != nil || !probe.HasEntry(env, entry) {
			continue
		}
		st, err := probe.ReadStat(pid)
		if err != nil || st.Zombie() {
			continue
		}
		out = append(out, member{pid: pid, start: st.Start})
	}
	return out, executing
}
