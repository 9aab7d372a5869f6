package doctor

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/spawn"
)

// Check tries each feature, in the order tether meets them.
func Check() []Finding {
	return []Finding{
		pdeathsig(), pidfd(), subreaper(), cgroup2(),
		namespaces("user namespaces", unix.CLONE_NEWUSER),
		namespaces("PID namespaces", pidnsFlags()),
		hidepid(), processLimit(), contain(),
	}
}

// contain is what tether run --contain (auto) would use here: the same
// trial run makes, so that the two agree.
func contain() Finding {
	f := Finding{Name: "--contain"}
	mode, err := spawn.Pick(spawn.ContainAuto)
	if err != nil {
		f.Detail = "auto fails, nothing would start: " + strings.TrimPrefix(err.Error(), "--contain=auto: nothing started: ")
		return f
	}
	f.OK, f.Mode = true, string(mode)
	f.Detail = "auto picks " + string(mode)
	return f
}

func pdeathsig() Finding {
	f := Finding{Name: "parent-death signal"}
	sig := new(int32) // on the heap: the kernel writes it
	if err := unix.Prctl(unix.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(sig)), 0, 0, 0); err != nil {
		f.Detail = "prctl(PR_GET_PDEATHSIG): " + err.Error()
		return f
	}
	f.OK, f.Detail = true, "prctl(PR_SET_PDEATHSIG)"
	return f
}

func pidfd() Finding {
	f := Finding{Name: "pidfd"}
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		f.Detail = "pidfd_open: " + err.Error() + " (Linux 5.3+): signals go by kill after a fresh check"
		return f
	}
	defer unix.Close(fd)
	if err := unix.PidfdSendSignal(fd, 0, nil, 0); err != nil {
		f.Detail = "pidfd_send_signal: " + err.Error()
		return f
	}
	f.OK, f.Detail = true, "pidfd_open and pidfd_send_signal"
	return f
}

func subreaper() Finding {
	f := Finding{Name: "child subreaper"}
	v := new(int32)
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(v)), 0, 0, 0); err != nil {
		f.Detail = "prctl(PR_GET_CHILD_SUBREAPER): " + err.Error()
		return f
	}
	f.OK, f.Detail = true, "prctl(PR_SET_CHILD_SUBREAPER)"
	return f
}

// cgroup2 finds the cgroup v2 hierarchy (also where it is mounted beside
// v1, as /sys/fs/cgroup/unified), this process's cgroup in it, and
// whether a child cgroup can be made there and killed whole.
func cgroup2() Finding {
	f := Finding{Name: "cgroup v2"}
	mount := ""
	mounts, _ := proc.Host().Mounts()
	for _, m := range mounts {
		if m.FSType == "cgroup2" {
			mount = m.Point
			break
		}
	}
	if mount == "" {
		f.Detail = "not mounted"
		return f
	}
	own := ""
	data, _ := os.ReadFile("/proc/self/cgroup")
	for _, line := range strings.Split(string(data), "\n") {
		if path, ok := strings.CutPrefix(line, "0::"); ok {
			own = path
		}
	}
	dir := strings.TrimSuffix(mount+own, "/")
	// A child cgroup made and removed again; cgroup.kill is a file of
	// every cgroup but the root.
	probe := fmt.Sprintf("%s/tether-doctor-%d", dir, os.Getpid())
	if err := os.Mkdir(probe, 0o755); err != nil {
		f.Detail = fmt.Sprintf("at %s; %s not writable: %v", mount, dir, unwrap(err))
		return f
	}
	_, killErr := os.Stat(probe + "/cgroup.kill")
	_ = os.Remove(probe)
	f.OK = killErr == nil
	f.Detail = fmt.Sprintf("at %s; a child of %s can be made", mount, dir)
	if killErr != nil {
		f.Detail += "; no cgroup.kill (Linux 5.14+)"
	} else {
		f.Detail += ", and killed whole (cgroup.kill)"
	}
	return f
}

// namespaces starts /bin/true in new namespaces of the kinds in flags.
func namespaces(name string, flags uintptr) Finding {
	f := Finding{Name: name}
	attr := &syscall.ProcAttr{Sys: &syscall.SysProcAttr{Cloneflags: flags}}
	if flags&unix.CLONE_NEWUSER != 0 {
		attr.Sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		attr.Sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	}
	pid, err := syscall.ForkExec("/bin/true", []string{"true"}, attr)
	if err != nil {
		f.Detail = "refused: " + err.Error()
		return f
	}
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, 0, nil)
	f.OK, f.Detail = true, "a process started in new ones"
	if flags&unix.CLONE_NEWUSER != 0 && flags&unix.CLONE_NEWPID != 0 {
		f.Detail += " (through a user namespace)"
	}
	return f
}

// pidnsFlags are what a PID namespace needs for this user: a user
// namespace too, unless root.
func pidnsFlags() uintptr {
	if os.Geteuid() == 0 {
		return unix.CLONE_NEWPID
	}
	return unix.CLONE_NEWPID | unix.CLONE_NEWUSER
}

func hidepid() Finding {
	f := Finding{Name: "/proc", OK: true, Detail: "every process visible"}
	mounts, _ := proc.Host().Mounts()
	for _, m := range mounts {
		if m.Point == proc.DefaultRoot && m.Hides() {
			f.OK, f.Detail = false, "hidepid="+m.HidePID()+": other users' processes are unverifiable"
		}
	}
	return f
}

// processLimit is the room ulimit -u leaves this user.
func processLimit() Finding {
	f := Finding{Name: "ulimit -u"}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &lim); err != nil {
		f.Detail = err.Error()
		return f
	}
	if lim.Cur == unix.RLIM_INFINITY || os.Geteuid() == 0 {
		f.OK, f.Detail = true, "no limit for this user"
		return f
	}
	used := proc.Host().Threads(os.Getuid())
	f.OK = used+16 < int(lim.Cur)
	f.Detail = fmt.Sprintf("%d of %d processes and threads in use", used, lim.Cur)
	return f
}

func unwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
