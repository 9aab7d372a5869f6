//go:build linux && !tetherportable

package spawn

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/probe"
)

// container is where a contained run keeps its tree.
type container struct {
	// tried are the modes that failed before the one in use (auto).
	tried []string

	// The cgroup mode: the run's group, in its hierarchy.
	group *cgroup.Group
	hier  cgroup.Hierarchy

	// The pidns mode: reports is the read end of the init's pipe, on
	// which it writes "started" once the command runs, "stop N" when
	// the command stops, and "exit STATUS" with its wait status.
	reports *os.File
	// initStatus carries the command's wait status, once the init has
	// closed its pipe.
	initStatus chan syscall.WaitStatus
	// stops carries the command's stops; a stop is dropped when one is
	// already waiting, so that the reader never blocks on the loop.
	stops chan syscall.Signal
	// command is the init's child, as this /proc numbers it, held by a
	// pidfd so that no recycled PID is signalled; nil until started.
	mu      sync.Mutex
	command *proc.Handle
	cmdPID  int
	// reading says readReports owns reports.
	reading bool
}

// contain sets the child up to start in its container: born in the run's
// cgroup, or as the init of new namespaces, running the command. It
// returns the path and arguments to start.
func (r *run) contain(path string, attr *syscall.ProcAttr) (string, []string, error) {
	argv := r.cfg.Args
	mode := r.cfg.Contain
	if mode == NoContainment {
		return path, argv, nil
	}
	var tried []string
	if mode == ContainAuto || mode == ContainCgroup {
		h, g, err := newGroup(r.cfg)
		if err == nil {
			r.box = &container{group: g, hier: h}
			attr.Sys.UseCgroupFD, attr.Sys.CgroupFD = true, g.FD()
			trace.Printf("contained in cgroup %s", g.Dir)
			return path, argv, nil
		}
		tried = append(tried, "cgroup: "+err.Error())
	}
	if mode == ContainAuto || mode == ContainPIDNamespace {
		err := pidnsUsable()
		if err == nil && r.cfg.WatchdogPath == "" {
			err = errors.New("no binary to run as the namespace's init (Config.WatchdogPath)")
		}
		if err == nil {
			return r.initOf(path, attr, tried)
		}
		tried = append(tried, "pidns: "+err.Error())
	}
	return "", nil, containError(mode, tried)
}

func containError(mode Containment, tried []string) error {
	return &StartError{Status: 125, Err: &ContainError{Mode: mode, Tried: tried}}
}

// newGroup makes the run's cgroup below tether's own, stamped, and makes
// sure that a process can be moved into it: a group made in a
// hierarchy whose cgroup.procs files are not the caller's (a directory
// handed over without them) would only fail at the start of the command.
func newGroup(cfg Config) (cgroup.Hierarchy, *cgroup.Group, error) {
	h, err := cgroup.Host()
	if err != nil {
		return h, nil, err
	}
	own, err := h.Of(proc.Host(), os.Getpid())
	if err != nil {
		return h, nil, err
	}
	// The stamp's entries alone: an empty environment stamped.
	g, err := cgroup.Create(own, cfg.RunID, cfg.environ([]string{}))
	if err != nil {
		if errors.Is(err, unix.EACCES) && os.Geteuid() != 0 {
			err = fmt.Errorf("%w (not root: start tether in a cgroup delegated to you, as systemd-run --user --scope -p Delegate=yes does)", err)
		}
		return h, nil, err
	}
	for _, dir := range []string{g.Dir, own} {
		if err := unix.Access(filepath.Join(dir, "cgroup.procs"), unix.W_OK); err != nil {
			_ = g.Close()
			_ = cgroup.Remove(g.Dir, 0)
			return h, nil, fmt.Errorf("no process can be moved into %s: %s/cgroup.procs: %w", g.Dir, dir, err)
		}
	}
	return h, g, nil
}

// pidnsFlags are the namespaces a contained run's init is started in: a
// PID namespace, and a mount namespace for its own /proc; a user
// namespace too when not root, which makes the other two possible.
func pidnsFlags() uintptr {
	flags := uintptr(unix.CLONE_NEWPID | unix.CLONE_NEWNS)
	if os.Geteuid() != 0 {
		flags |= unix.CLONE_NEWUSER
	}
	return flags
}

// setNamespaces has sys start its process in the namespaces of a
// contained run's init: in a user namespace, the caller's user and group
// map to themselves, and the init keeps the one capability that mounts
// its /proc, which it would lose at its execve as the caller's own uid;
// it drops it before it starts the command.
func setNamespaces(sys *syscall.SysProcAttr) {
	sys.Cloneflags |= pidnsFlags()
	if sys.Cloneflags&unix.CLONE_NEWUSER != 0 {
		sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
		sys.GidMappingsEnableSetgroups = false
		sys.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
}

// pidnsUsable rules out what certainly refuses a PID namespace, without
// starting a process: the start of the init is the real test.
func pidnsUsable() error {
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

// initOf has the run start tether's init in new namespaces, which starts
// the command. The init is tied to tether by SIGKILL as its parent-death
// signal: tether's death ends the init, and the kernel every process of
// its namespace.
func (r *run) initOf(path string, attr *syscall.ProcAttr, tried []string) (string, []string, error) {
	rd, wr, err := os.Pipe()
	if err != nil {
		return "", nil, &StartError{Status: 125, Err: fmt.Errorf("init pipe: %w", err)}
	}
	r.box = &container{tried: tried, reports: rd, initStatus: make(chan syscall.WaitStatus, 1), stops: make(chan syscall.Signal, 1)}
	r.closeAfterStart = append(r.closeAfterStart, wr)
	attr.Files = append(attr.Files, wr.Fd())
	setNamespaces(attr.Sys)
	attr.Sys.Pdeathsig = syscall.SIGKILL
	argv := append([]string{"tether", InitArg, strconv.FormatInt(int64(r.cfg.Grace), 10), path}, r.cfg.Args...)
	trace.Printf("contained in a new PID namespace, under tether's init")
	return r.cfg.WatchdogPath, argv, nil
}

// startFailed is the error of a start that failed in its container: the
// init is tether's own binary, so a failure to start it is the
// namespaces' refusal, not the command's.
func (r *run) startFailed(err error) error {
	if r.box == nil || r.box.reports == nil {
		return nil
	}
	return containError(r.cfg.Contain, append(r.box.tried, "pidns: new namespaces refused: "+err.Error()))
}

// readReports reads the init's pipe until the init is gone. It never
// waits on the loop, which waits on it for the command's status once the
// init is reaped.
func (r *run) readReports() {
	b := r.box
	var status syscall.WaitStatus
	have := false
	lines := bufio.NewScanner(b.reports)
	for lines.Scan() {
		word, arg, _ := strings.Cut(lines.Text(), " ")
		n, _ := strconv.ParseUint(arg, 10, 32)
		switch word {
		case "started":
			b.hold(r.child)
		case "stop":
			select {
			case b.stops <- syscall.Signal(n):
			default:
			}
		case "exit":
			status, have = syscall.WaitStatus(n), true
		}
	}
	b.reports.Close()
	if have {
		b.initStatus <- status
	}
	close(b.initStatus)
}

// hold takes a handle on the command, the init's child: found among the
// init's children, then checked to be one still once the handle is open.
func (b *container) hold(init int) {
	fs := proc.Host()
	for _, pid := range fs.Children(init) {
		h, err := fs.Open(pid)
		if err != nil {
			continue
		}
		if st, err := fs.Stat(pid); err != nil || st.PPID != init {
			h.Close()
			continue
		}
		b.mu.Lock()
		b.command, b.cmdPID = h, pid
		b.mu.Unlock()
		trace.Printf("the command is %d", pid)
		return
	}
}

// signalCommand sends sig to the command alone, through its handle;
// false when there is none (no PID namespace, or not started yet).
func (b *container) signalCommand(sig syscall.Signal) bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.command == nil {
		return false
	}
	_ = b.command.Signal(sig)
	return true
}

// commandGroup is the command's process group, when it has left the
// init's (a shell with job control, setsid): 0 otherwise.
func (b *container) commandGroup(init int) int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	pid := b.cmdPID
	b.mu.Unlock()
	if pid == 0 {
		return 0
	}
	st, err := proc.Host().Stat(pid)
	if err != nil || st.PPID != init || st.PGID == init {
		return 0
	}
	return st.PGID
}

// stillStopped reports whether the command is stopped now: a stop the
// init reported may be over by the time it is read.
func (b *container) stillStopped() bool {
	b.mu.Lock()
	pid := b.cmdPID
	b.mu.Unlock()
	st, err := proc.Host().Stat(pid)
	return err == nil && (st.State == 'T' || st.State == 't')
}

// groupDir is the run's cgroup, "" when it has none.
func (b *container) groupDir() string {
	if b == nil || b.group == nil {
		return ""
	}
	return b.group.Dir
}

// afterStart starts reading the init's reports, once it runs.
func (b *container) afterStart(r *run) {
	if b != nil && b.reports != nil {
		b.reading = true
		go r.readReports()
	}
}

// statusOf is the command's wait status, given the status of the child
// tether started: in a PID namespace the init passed the command's own on
// before it exited, and its pipe is at its end now.
func (b *container) statusOf(ws syscall.WaitStatus) syscall.WaitStatus {
	if b == nil || b.initStatus == nil {
		return ws
	}
	if st, ok := <-b.initStatus; ok {
		return st
	}
	return ws
}

// groupBox is a container for the watchdog, which knows only the run's
// cgroup directory.
func groupBox(dir string) *container {
	h, err := cgroup.Host()
	if err != nil || dir == "" {
		return nil
	}
	return &container{group: &cgroup.Group{Dir: dir}, hier: h}
}

// stopReports is the channel of the command's stops, nil (never ready)
// without a PID namespace.
func (b *container) stopReports() chan syscall.Signal {
	if b == nil {
		return nil
	}
	return b.stops
}

// members are the processes of the run's cgroup, when it has one.
func (b *container) members() []proc.Member {
	if b == nil || b.group == nil {
		return nil
	}
	return b.hier.Members(proc.Host(), b.group.Dir)
}

// kill ends every process of the run's cgroup at once.
func (b *container) kill() {
	if b == nil || b.group == nil {
		return
	}
	if err := cgroup.Kill(b.group.Dir); err != nil {
		trace.Printf("kill %s: %v", b.group.Dir, err)
		return
	}
	trace.Printf("killed cgroup %s", b.group.Dir)
}

// release removes the run's cgroup once it is empty, and closes what the
// container holds; once.
func (b *container) release() {
	if b == nil {
		return
	}
	b.mu.Lock()
	if b.command != nil {
		b.command.Close()
		b.command = nil
	}
	b.mu.Unlock()
	if b.reports != nil && !b.reading {
		b.reports.Close()
	}
	if b.group == nil {
		return
	}
	g := b.group
	b.group = nil
	_ = g.Close()
	if err := cgroup.Remove(g.Dir, proc.KillWait); err != nil {
		trace.Printf("%v", err)
	}
}

// Pick tells which containment c comes to here, for this user, trying
// each as Supervise would: a cgroup is made and removed again, and the
// init of a PID namespace (initPath, a binary that runs [InitMain] when
// its first argument is [InitArg]) runs /bin/true. The error, a
// *[ContainError], names what was tried and why each failed.
func Pick(c Containment, initPath string) (Containment, error) {
	var tried []string
	if c == ContainAuto || c == ContainCgroup {
		_, g, err := newGroup(Config{RunID: probe.NewRunID(), Name: "doctor"})
		if err == nil {
			_ = g.Close()
			_ = cgroup.Remove(g.Dir, 0)
			return ContainCgroup, nil
		}
		tried = append(tried, "cgroup: "+err.Error())
	}
	if c == ContainAuto || c == ContainPIDNamespace {
		err := pidnsUsable()
		if err == nil {
			err = tryInit(initPath)
		}
		if err == nil {
			return ContainPIDNamespace, nil
		}
		tried = append(tried, "pidns: "+err.Error())
	}
	return NoContainment, &ContainError{Mode: c, Tried: tried}
}

// tryInit starts the init of a contained run, running /bin/true, as
// Supervise would start it.
func tryInit(initPath string) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	attr := &syscall.ProcAttr{Files: []uintptr{null.Fd(), null.Fd(), null.Fd(), null.Fd()}, Sys: &syscall.SysProcAttr{}}
	setNamespaces(attr.Sys)
	pid, err := syscall.ForkExec(initPath, []string{"tether", InitArg, "0", "/bin/true", "true"}, attr)
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
		return fmt.Errorf("the init of a new PID namespace failed (%s %s: exit status %d)", initPath, InitArg, exitStatus(ws))
	}
	return nil
}
