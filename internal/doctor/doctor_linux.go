package doctor

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/pidns"
	"github.com/tetherproc/tether/internal/proc"
)

// Check tries each feature, in the order tether meets them.
func Check() []Finding {
	cg, ns := cgroup2(), pidNamespaces()
	return []Finding{
		pdeathsig(), pidfds(), subreaper(), cg, userNamespaces(), ns,
		hidepid(), processLimit(), contain(cg, ns), linking(),
	}
}

// linking says whether this tether is static, as every build command of
// the project makes it (CGO_ENABLED=0): one built with cgo and net links
// the C library, which costs about a millisecond of every start and
// starts threads with clone3, which older container seccomp profiles
// refuse. The loader and the C library show in the process's own maps.
func linking() Finding {
	f := Finding{Name: "static binary", OK: true, Detail: "no C library linked"}
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		f.OK, f.Detail = false, "cannot tell: "+err.Error()
		return f
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "/ld-linux") || strings.Contains(line, "/ld-musl") || strings.Contains(line, "/libc.so") {
			f.OK = false
			f.Detail = "dynamically linked (" + line[strings.LastIndexByte(line, ' ')+1:] + "): about 1 ms more at every start, and threads made with clone3, which older container seccomp profiles refuse; build it with CGO_ENABLED=0"
			return f
		}
	}
	return f
}

// initPath is tether itself, which is the init of a contained run.
const initPath = "/proc/self/exe"

// contain is what tether run --contain (auto) uses here, as run picks
// it: a cgroup where one can be made and entered, else a PID namespace.
func contain(cg, ns Finding) Finding {
	f := Finding{Name: "--contain"}
	switch {
	case cg.OK:
		f.Mode = "cgroup"
	case ns.OK:
		f.Mode = "pidns"
	default:
		f.Detail = "auto fails, nothing would start: see the cgroup v2 and PID namespaces lines"
		return f
	}
	f.OK, f.Detail = true, "auto picks "+f.Mode
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

func pidfds() Finding {
	f := Finding{Name: "pidfd"}
	if ok, why := pidfd.Pidfds(); !ok {
		f.Detail = why.Error() + " (Linux 5.3+): processes are held by PID and start time, and signalled with kill(2) right after a fresh look at both; the caller's chain is looked at every 100 ms"
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
// whether a run's group can be made there, as run --contain=cgroup makes
// it, and killed whole.
func cgroup2() Finding {
	f := Finding{Name: "cgroup v2"}
	h, err := cgroup.Host()
	if err != nil {
		f.Detail = err.Error()
		return f
	}
	own, err := h.Of(proc.Host(), os.Getpid())
	if err != nil {
		f.Detail = fmt.Sprintf("at %s; %v", h.Mount, err)
		return f
	}
	hasKill, bornIn, err := cgroup.Try()
	if err != nil {
		f.Detail = fmt.Sprintf("at %s; %v", h.Mount, err)
		return f
	}
	f.OK = true
	f.Detail = fmt.Sprintf("at %s; a child of %s can be made and entered", h.Mount, own)
	if hasKill {
		f.Detail += ", and killed whole (cgroup.kill)"
	} else {
		f.Detail += "; no cgroup.kill (Linux 5.14+): frozen and killed instead"
	}
	if bornIn != nil {
		f.Detail += "; " + bornIn.Error() + " (Linux 5.7+): the command enters its group through tether's own binary before it runs"
	}
	return f
}

// pidNamespaces starts the init of a contained run in new namespaces, as
// run --contain=pidns starts it.
func pidNamespaces() Finding {
	f := Finding{Name: "PID namespaces"}
	if err := pidns.Try(initPath); err != nil {
		f.Detail = err.Error()
		return f
	}
	f.OK, f.Detail = true, "tether's init ran in new ones"
	if os.Geteuid() != 0 {
		f.Detail += " (through a user namespace)"
	}
	return f
}

// userNamespaces starts /bin/true in a new user namespace.
func userNamespaces() Finding {
	f := Finding{Name: "user namespaces"}
	attr := &syscall.ProcAttr{Sys: &syscall.SysProcAttr{
		Cloneflags:  unix.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
	}}
	pid, err := syscall.ForkExec("/bin/true", []string{"true"}, attr)
	if err != nil {
		f.Detail = "refused: " + err.Error()
		return f
	}
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, 0, nil)
	f.OK, f.Detail = true, "a process started in a new one"
	return f
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
