package pidns

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/exitcode"
	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/trace"
)

// Init is the supervisor's handle on a contained run's init: the read
// end of its report pipe, and the command once the init has started it.
// Every method of a nil Init does nothing, so that a run without a PID
// namespace needs no test of its own.
type Init struct {
	reports *os.File // read end; the write end is the init's fd 3
	write   *os.File // the init's end, closed once it has it
	// status carries the command's wait status, once the init has
	// closed its pipe.
	status chan syscall.WaitStatus
	// stops carries the command's stops; a stop is dropped when one is
	// already waiting, so that the reader never blocks on the loop.
	stops chan syscall.Signal
	// command is the init's child, as this /proc numbers it, held by a
	// pidfd so that no recycled PID is signalled; nil until started.
	mu      sync.Mutex
	command *pidfd.Handle
	cmdPID  int
	reading bool
	// execErr is the errno the init could not execute the command with.
	execErr syscall.Errno
}

// Usable rules out what certainly refuses a PID namespace, without
// starting a process: the start of the init is the real test.
func Usable() error {
	if os.Geteuid() == 0 {
		return nil
	}
	for file, what := range map[string]string{
		"/proc/sys/user/max_user_namespaces":         "user.max_user_namespaces = 0",
		"/proc/sys/kernel/unprivileged_userns_clone": "kernel.unprivileged_userns_clone = 0",
	} {
		if data, err := os.ReadFile(file); err == nil && strings.TrimSpace(string(data)) == "0" {
			return fmt.Errorf("user namespaces are disabled for users (%s)", what)
		}
	}
	return nil
}

// Prepare sets attr up to start self, a binary whose main runs [Main]
// when its first argument is [Arg], as the init of new PID and mount
// namespaces (and a user namespace when not root), running path with
// argv; the init is tied to its parent by SIGKILL as its parent-death
// signal: the supervisor's death ends the init, and the kernel every
// process of its namespace. It returns the handle and the init's argv;
// attr gets the report pipe as the next descriptor (3), and the caller
// appends the command's extra descriptors after it, one after the other,
// which the init passes on to the command as the numbers in targets.
func Prepare(self, path string, argv []string, grace time.Duration, targets []int, attr *syscall.ProcAttr) (*Init, []string, error) {
	if len(attr.Files) != 3 {
		return nil, nil, fmt.Errorf("init: %d descriptors before the report pipe, want 3", len(attr.Files))
	}
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("init pipe: %w", err)
	}
	attr.Files = append(attr.Files, wr.Fd())
	// The credential is the command's (credential.go): the init, which
	// mounts /proc, keeps the supervisor's.
	cred := attr.Sys.Credential
	attr.Sys.Credential = nil
	setNamespaces(attr.Sys)
	attr.Sys.Pdeathsig = syscall.SIGKILL
	in := &Init{reports: rd, write: wr, status: make(chan syscall.WaitStatus, 1), stops: make(chan syscall.Signal, 1)}
	return in, initArgs(grace, targets, cred, path, argv), nil
}

// initArgs is the init's command line, as Main reads it: the grace, the
// targets of the extra descriptors comma-separated ("-" for none), the
// command's credential (credentialArg), the command.
func initArgs(grace time.Duration, targets []int, cred *syscall.Credential, path string, argv []string) []string {
	ts := "-"
	if len(targets) > 0 {
		s := make([]string, len(targets))
		for i, t := range targets {
			s[i] = strconv.Itoa(t)
		}
		ts = strings.Join(s, ",")
	}
	return append([]string{"tether", Arg, strconv.FormatInt(int64(grace), 10), ts, credentialArg(cred), path}, argv...)
}

// setNamespaces has sys start its process in the namespaces of a
// contained run's init: in a user namespace, the caller's user and group
// map to themselves, and the init keeps the one capability that mounts
// its /proc, which it would lose at its execve as the caller's own uid;
// it drops it before it starts the command.
func setNamespaces(sys *syscall.SysProcAttr) {
	sys.Cloneflags |= unix.CLONE_NEWPID | unix.CLONE_NEWNS
	if os.Geteuid() != 0 {
		sys.Cloneflags |= unix.CLONE_NEWUSER
		sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
		sys.GidMappingsEnableSetgroups = false
		sys.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
}

// Started closes the init's end of the pipe, which the init (pid) has
// now, and reads its reports until it is gone. With started false (the
// start failed) it only closes.
func (in *Init) Started(pid int, started bool) {
	if in == nil {
		return
	}
	in.write.Close()
	if started {
		in.reading = true
		go in.read(pid)
	}
}

// read reads the init's pipe until the init is gone. It never waits on
// the supervisor's loop, which waits on it for the command's status once
// the init is reaped.
func (in *Init) read(init int) {
	var status syscall.WaitStatus
	have := false
	lines := bufio.NewScanner(in.reports)
	for lines.Scan() {
		switch r := parseReport(lines.Text()); r.word {
		case "started":
			in.hold(init)
		case "stop":
			select {
			case in.stops <- syscall.Signal(r.n):
			default:
			}
		case "exit":
			status, have = syscall.WaitStatus(r.n), true
		case "execfail":
			in.mu.Lock()
			in.execErr = syscall.Errno(r.n)
			in.mu.Unlock()
		}
	}
	in.reports.Close()
	if have {
		in.status <- status
	}
	close(in.status)
}

// hold takes a handle on the command, the init's child: the oldest of
// them (the orphans the init adopts are younger), checked to be one
// still once the handle is open.
func (in *Init) hold(init int) {
	fs := proc.Host()
	first, start := 0, uint64(0)
	for _, pid := range ptree.Children(fs, init) {
		if st, err := fs.Stat(pid); err == nil && st.PPID == init && (first == 0 || st.StartTime < start) {
			first, start = pid, st.StartTime
		}
	}
	if first == 0 {
		return
	}
	h, err := pidfd.Open(fs, first)
	if err != nil {
		return
	}
	if st, err := fs.Stat(first); err != nil || st.PPID != init || st.StartTime != start {
		h.Close()
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.command != nil {
		h.Close() // held already, by the other caller
		return
	}
	in.command, in.cmdPID = h, first
	trace.Printf("the command is %d", first)
}

// Signal sends sig to the command alone, through its handle; false when
// there is none (nil, or not started yet).
func (in *Init) Signal(sig syscall.Signal) bool {
	if in == nil {
		return false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.command == nil {
		return false
	}
	_ = in.command.Signal(sig)
	return true
}

// CommandGroup is the command's process group when it has left the
// init's (a shell with job control, setsid): 0 otherwise.
func (in *Init) CommandGroup(init int) int {
	if in == nil {
		return 0
	}
	in.mu.Lock()
	pid, reading := in.cmdPID, in.reading
	in.mu.Unlock()
	if pid == 0 && reading {
		// The init's "started" may not be read yet while the command
		// already runs (and is sent a signal after its first output):
		// it is held now rather than missed.
		in.hold(init)
		in.mu.Lock()
		pid = in.cmdPID
		in.mu.Unlock()
	}
	if pid == 0 {
		return 0
	}
	st, err := proc.Host().Stat(pid)
	if err != nil || st.PPID != init || st.PGID == init {
		return 0
	}
	return st.PGID
}

// Stops is the channel of the command's stops, nil (never ready) for a
// nil Init.
func (in *Init) Stops() <-chan syscall.Signal {
	if in == nil {
		return nil
	}
	return in.stops
}

// StillStopped reports whether the command is stopped now: a stop the
// init reported may be over by the time it is read.
func (in *Init) StillStopped() bool {
	if in == nil {
		return false
	}
	in.mu.Lock()
	pid := in.cmdPID
	in.mu.Unlock()
	st, err := proc.Host().Stat(pid)
	return err == nil && (st.State == 'T' || st.State == 't')
}

// Status is the command's wait status, given the init's, once the init
// is reaped: the init passed the command's own on before it exited, and
// its pipe is at its end now. For nil, ws itself.
func (in *Init) Status(ws syscall.WaitStatus) syscall.WaitStatus {
	if in == nil {
		return ws
	}
	if st, ok := <-in.status; ok {
		return st
	}
	return ws
}

// ExecError is why the init could not execute the command (an errno),
// nil when it did or never said; read once the init is reaped (after
// Status).
func (in *Init) ExecError() error {
	if in == nil {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.execErr == 0 {
		return nil
	}
	return in.execErr
}

// Close lets go of what the handle holds; also when the init never
// started.
func (in *Init) Close() {
	if in == nil {
		return
	}
	in.mu.Lock()
	if in.command != nil {
		in.command.Close()
		in.command = nil
	}
	in.mu.Unlock()
	if !in.reading {
		in.write.Close()
		in.reports.Close()
	}
}

// Try starts the init of a contained run in new namespaces, running
// /bin/true, as the supervisor would start it: nil when that works here.
func Try(self string) error {
	if err := Usable(); err != nil {
		return err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	attr := &syscall.ProcAttr{Files: []uintptr{null.Fd(), null.Fd(), null.Fd(), null.Fd()}, Sys: &syscall.SysProcAttr{}}
	setNamespaces(attr.Sys)
	pid, err := syscall.ForkExec(self, initArgs(0, nil, nil, "/bin/true", []string{"true"}), attr)
	if err != nil {
		return fmt.Errorf("new namespaces refused: %w", err)
	}
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if ws.ExitStatus() != 0 {
		return fmt.Errorf("the init of a new PID namespace failed (%s %s: exit status %d)", self, Arg, exitcode.Wait(ws))
	}
	return nil
}
