package pidns

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/exitcode"
	"github.com/tetherproc/tether/internal/trace"
)

// Main is the init of a contained run's PID namespace: args are the
// grace in nanoseconds, the numbers the extra descriptors are to have in
// the command (comma-separated, "-" for none), the command's credential
// ("-" for the init's own), the command's path and its arguments; file descriptor 3 is the pipe to the supervisor, and the
// extra descriptors follow it one after the other (4 and on). It returns
// the exit status.
//
// The command is not the namespace's init, so it keeps the signal
// semantics it has anywhere else: a namespace's init ignores every
// signal it has no handler for. It stays in the init's process group,
// which tether treats as the command's: the terminal's signals, and those
// tether forwards to the group, reach it directly, and the init, which
// catches them all, lets them pass; what tether sends to the command
// alone it sends to the command itself, by the handle it takes once the
// init reports it "started". What the init does: mount a /proc of the
// namespace, start the command, reap every orphan, tell tether when the
// command stops (a namespace's init cannot stop itself, so tether stops
// in its place) and how it ended, and once it has, end the rest of the
// namespace: TERM, up to the grace, then its own exit, on which the
// kernel kills whatever is left.
func Main(args []string) int {
	in, ok := parseInitArgs(args)
	if !ok {
		return 125
	}
	syscall.CloseOnExec(3)
	reports := os.NewFile(3, "supervisor")
	sigchld := catchSignals()
	// The command is started from this thread, which alone holds the
	// capability to mount (through a user namespace): dropped here, it
	// is not passed on.
	runtime.LockOSThread()
	mountProc()
	if err := dropMountCapability(); err != nil {
		fmt.Fprintf(os.Stderr, "tether-init: drop capabilities: %v\n", err)
		return 125
	}
	child, err := syscall.ForkExec(in.path, in.argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: in.files,
		Sys:   &syscall.SysProcAttr{Credential: in.cred},
	})
	if err != nil {
		// The supervisor says it, as it says a failure of its own
		// start: the init writes nothing of its own to the command's
		// standard error.
		reportExecFailed(reports, err)
		return exitcode.Exec(err)
	}
	trace.Printf("init: started %s as %d", in.path, child)
	reportStarted(reports)
	status := initWait(child, sigchld, reports)
	reportExit(reports, uint32(status))
	endNamespace(in.grace, sigchld)
	return exitcode.Wait(status)
}

// initCommand is what Main's arguments say to run, parsed.
type initCommand struct {
	grace time.Duration
	files []uintptr
	cred  *syscall.Credential
	path  string
	argv  []string
}

// parseInitArgs parses Main's arguments, and checks that it runs as the
// init of a PID namespace; where not, it says what is wrong on standard
// error, naming the bad argument.
func parseInitArgs(args []string) (in initCommand, ok bool) {
	if len(args) < 5 || os.Getpid() != 1 {
		fmt.Fprintln(os.Stderr, "tether-init: want GRACE_NS EXTRA_FDS CREDENTIAL PATH ARGV..., as the init of a PID namespace")
		return in, false
	}
	grace, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || grace < 0 {
		fmt.Fprintln(os.Stderr, "tether-init: bad grace", args[0])
		return in, false
	}
	in.grace = time.Duration(grace)
	if in.files, ok = extraFiles(args[1]); !ok {
		fmt.Fprintln(os.Stderr, "tether-init: bad targets of extra descriptors", args[1])
		return in, false
	}
	if in.cred, ok = parseCredential(args[2]); !ok {
		fmt.Fprintln(os.Stderr, "tether-init: bad credential", args[2])
		return in, false
	}
	in.path, in.argv = args[3], args[4:]
	return in, true
}

// catchSignals catches every signal, and acts on none but SIGCHLD,
// whose channel it returns: caught rather than ignored, so that the
// command starts with the default dispositions (an ignored signal stays
// ignored across execve), but for those the init was started with
// ignored: the supervisor's caller left them so (nohup's HUP), and the
// command gets them ignored as it would without tether. SIGCHLD has a
// channel of its own, which no flood of others can crowd out; one
// waiting is enough, as each is followed by a reap of every child that
// has exited.
func catchSignals() chan os.Signal {
	other, sigchld := make(chan os.Signal, 1), make(chan os.Signal, 1)
	signal.Notify(other, caught()...)
	signal.Notify(sigchld, syscall.SIGCHLD)
	go func() {
		for range other {
		}
	}()
	return sigchld
}

// caught are the signals the init catches: every one but those it was
// started with ignored, which stay ignored for the command.
func caught() []os.Signal {
	var sigs []os.Signal
	for sig := syscall.Signal(1); sig <= 64; sig++ {
		if sig != syscall.SIGKILL && sig != syscall.SIGSTOP && !signal.Ignored(sig) {
			sigs = append(sigs, sig)
		}
	}
	return sigs
}

// extraFiles reads the targets of the extra descriptors, which arrive at
// 4 and on, into the command's descriptors: 0, 1, 2, then each at its
// target, and where there is none between them, none (-1, closed).
func extraFiles(arg string) ([]uintptr, bool) {
	files := []uintptr{0, 1, 2}
	if arg == "-" {
		return files, true
	}
	for i, t := range strings.Split(arg, ",") {
		n, err := strconv.Atoi(t)
		if err != nil || n < len(files) || n > 1<<20 {
			return nil, false
		}
		for len(files) < n {
			files = append(files, ^uintptr(0))
		}
		fd := 4 + i
		syscall.CloseOnExec(fd) // the command gets it at n, not twice
		files = append(files, uintptr(fd))
	}
	return files, true
}

// initWait reaps until the command has exited, reporting its stops.
func initWait(child int, sigchld chan os.Signal, reports *os.File) syscall.WaitStatus {
	for {
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG|syscall.WUNTRACED, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil || pid <= 0 {
				break
			}
			switch {
			case pid != child:
			case ws.Stopped():
				reportStop(reports, ws.StopSignal())
			default:
				return ws
			}
		}
		<-sigchld
	}
}

// endNamespace ends what the command left in the namespace: TERM to all
// of it, then up to grace for it to go; past that, the init's exit
// leaves the rest to the kernel's SIGKILL.
func endNamespace(grace time.Duration, sigchld chan os.Signal) {
	// kill(-1) reaches every process of the namespace but the init.
	if err := unix.Kill(-1, syscall.SIGTERM); err == syscall.ESRCH {
		return
	}
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	for {
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if err == syscall.ECHILD {
				return
			}
			if err != nil || pid <= 0 {
				break
			}
		}
		select {
		case <-sigchld:
		case <-deadline.C:
			trace.Printf("init: grace of %v over", grace)
			return
		}
	}
}

// mountProc mounts a /proc of the namespace over the old one, so that
// the command finds itself in /proc by its own PID, and a tether run
// inside it finds a /proc it can walk. The mounts are first made
// slaves of the host's, so that nothing mounted here propagates out.
func mountProc() {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		trace.Printf("init: keep the host's /proc: mount propagation: %v", err)
		return
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		trace.Printf("init: keep the host's /proc: %v", err)
	}
}

// dropMountCapability takes back from this thread what the supervisor
// gave the init of a user namespace to mount /proc with (an ambient
// capability, and so an inheritable one), so that the command starts
// with what it would have had without tether. As root, in no user
// namespace, there is nothing to take back.
func dropMountCapability() error {
	set, err := unix.PrctlRetInt(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_IS_SET, unix.CAP_SYS_ADMIN, 0, 0)
	if err != nil || set == 0 {
		return nil // no ambient capabilities here (Linux before 4.3), or none given
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	return unix.Capset(&hdr, &data[0])
}
