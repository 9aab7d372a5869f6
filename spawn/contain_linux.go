package spawn

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/probe"
)

// container is where a contained run keeps its tree.
type container struct {
	mode Containment
	// group is the run's cgroup (cgroup mode).
	group *cgroup.Group
	// reports is the read end of the init's pipe (pidns mode): "stop N"
	// when the command stops, "exit STATUS" with its wait status.
	reports *os.File
	// initStatus carries the command's wait status, read from reports,
	// once the init has closed it.
	initStatus chan syscall.WaitStatus
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
		g, err := newGroup(r.cfg)
		if err == nil {
			r.box = &container{mode: ContainCgroup, group: g}
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
			return r.initOf(path, attr)
		}
		tried = append(tried, "pidns: "+err.Error())
	}
	return "", nil, &StartError{Status: 125, Err: &ContainError{Mode: mode, Tried: tried}}
}

// newGroup makes the run's cgroup below tether's own, stamped.
func newGroup(cfg Config) (*cgroup.Group, error) {
	h, err := cgroup.Find(proc.Host())
	if err != nil {
		return nil, err
	}
	own, err := h.Of(proc.Host(), os.Getpid())
	if err != nil {
		return nil, err
	}
	// The stamp's entries alone: an empty environment stamped.
	return cgroup.Create(own, cfg.RunID, cfg.environ([]string{}))
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

// setNamespaces has attr start its process in new namespaces; in a user
// namespace, the caller's user and group map to themselves.
func setNamespaces(sys *syscall.SysProcAttr) {
	sys.Cloneflags |= pidnsFlags()
	if sys.Cloneflags&unix.CLONE_NEWUSER != 0 {
		sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
		sys.GidMappingsEnableSetgroups = false
	}
}

// pidnsUsable rules out what certainly refuses a PID namespace, without
// starting a process: the start of the init is the real test.
func pidnsUsable() error {
	if os.Geteuid() == 0 {
		return nil
	}
	data, err := os.ReadFile("/proc/sys/user/max_user_namespaces")
	if err == nil && strings.TrimSpace(string(data)) == "0" {
		return errors.New("user namespaces are disabled (user.max_user_namespaces = 0)")
	}
	return nil
}

// initOf has the run start tether's init in new namespaces, which starts
// the command. The init is tied to tether by SIGKILL as its parent-death
// signal: tether's death ends the init, and the kernel every process of
// its namespace.
func (r *run) initOf(path string, attr *syscall.ProcAttr) (string, []string, error) {
	rd, wr, err := os.Pipe()
	if err != nil {
		return "", nil, &StartError{Status: 125, Err: fmt.Errorf("init pipe: %w", err)}
	}
	r.box = &container{mode: ContainPIDNamespace, reports: rd, initStatus: make(chan syscall.WaitStatus, 1)}
	r.closeAfterStart = append(r.closeAfterStart, wr)
	attr.Files = append(attr.Files, wr.Fd())
	setNamespaces(attr.Sys)
	if attr.Sys.Cloneflags&unix.CLONE_NEWUSER != 0 {
		// The init runs as the caller's own uid in its user
		// namespace, and would lose the namespace's capabilities at
		// its execve; it keeps the one that mounts its /proc, and
		// drops it before it starts the command.
		attr.Sys.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
	attr.Sys.Pdeathsig = syscall.SIGKILL
	argv := append([]string{"tether", InitArg, strconv.FormatInt(int64(r.cfg.Grace), 10), path}, r.cfg.Args...)
	trace.Printf("contained in a new PID namespace, under tether's init")
	return r.cfg.WatchdogPath, argv, nil
}

// readReports reads the init's pipe until the init is gone: a stop of
// the command is handled as the command's own stop would be, and its
// wait status is kept for when the init has been reaped.
func (r *run) readReports() {
	b := r.box
	var status syscall.WaitStatus
	have := false
	lines := bufio.NewScanner(b.reports)
	for lines.Scan() {
		word, arg, _ := strings.Cut(lines.Text(), " ")
		n, err := strconv.ParseUint(arg, 10, 32)
		if err != nil {
			continue
		}
		switch word {
		case "stop":
			r.sigs <- commandStopped(syscall.Signal(n))
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

// commandStopped is the init's report that the command stopped, passed
// to the loop among the signals.
type commandStopped syscall.Signal

func (s commandStopped) String() string {
	return "command stopped by " + unix.SignalName(syscall.Signal(s))
}
func (commandStopped) Signal() {}

// members are the processes of the run's cgroup, when it has one.
func (b *container) members() []proc.Member {
	if b == nil || b.group == nil {
		return nil
	}
	return cgroup.Members(proc.Host(), b.group.Dir)
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

// remove removes the run's cgroup once it is empty.
func (b *container) remove() {
	if b == nil || b.group == nil {
		return
	}
	_ = b.group.Close()
	if err := cgroup.Remove(b.group.Dir, proc.KillWait); err != nil {
		trace.Printf("%v", err)
	}
}

// Pick tells which containment c comes to here, for this user, trying
// each as Supervise would: a cgroup is made and removed again, a process
// is started in new namespaces. The error, a *[ContainError], names
// what was tried and why each failed.
func Pick(c Containment) (Containment, error) {
	var tried []string
	if c == ContainAuto || c == ContainCgroup {
		g, err := newGroup(Config{RunID: probe.NewRunID(), Name: "doctor"})
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
			err = tryNamespaces()
		}
		if err == nil {
			return ContainPIDNamespace, nil
		}
		tried = append(tried, "pidns: "+err.Error())
	}
	return NoContainment, &ContainError{Mode: c, Tried: tried}
}

// tryNamespaces starts /bin/true in the namespaces of a contained run.
func tryNamespaces() error {
	attr := &syscall.ProcAttr{Sys: &syscall.SysProcAttr{}}
	setNamespaces(attr.Sys)
	pid, err := syscall.ForkExec("/bin/true", []string{"true"}, attr)
	if err != nil {
		return fmt.Errorf("new PID namespace refused: %w", err)
	}
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			return nil
		}
	}
}
