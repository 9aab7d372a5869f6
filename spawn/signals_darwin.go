package spawn

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/trace"
)

// notForwarded are the signals Supervise never passes on: those that
// cannot be caught, SIGCHLD (which it reaps on), SIGPIPE (which tether's
// own writes raise) and the Go runtime's own (SIGURG, SIGPROF).
var notForwarded = map[syscall.Signal]bool{
	unix.SIGKILL: true, unix.SIGSTOP: true, unix.SIGCHLD: true, unix.SIGPIPE: true,
	unix.SIGURG: true, unix.SIGPROF: true,
}

// maxSignal is the highest signal number.
const maxSignal = 31

// ignoreReserved has nothing to do: macOS reserves no signal for its C
// library.
func ignoreReserved() {}

// readInherited reads what tether's caller left ignored, as far as Go's
// runtime keeps it (HUP and INT); macOS has no /proc/self/status to read
// the blocked signals from.
func readInherited() (inherited, error) {
	var in inherited
	for _, sig := range []syscall.Signal{unix.SIGHUP, unix.SIGINT} {
		if signal.Ignored(sig) {
			in.ignored |= bit(sig)
		}
	}
	return in, nil
}

// commonSignals are caught before the command starts; the rest a moment
// later.
var commonSignals = map[syscall.Signal]bool{
	unix.SIGHUP: true, unix.SIGINT: true, unix.SIGQUIT: true, unix.SIGTERM: true,
	unix.SIGUSR1: true, unix.SIGUSR2: true, unix.SIGWINCH: true, unix.SIGALRM: true,
	unix.SIGCONT: true, unix.SIGTSTP: true, unix.SIGTTIN: true, unix.SIGTTOU: true,
	unix.SIGSYS: true, unix.SIGTRAP: true, unix.SIGILL: true, unix.SIGABRT: true,
	unix.SIGBUS: true, unix.SIGFPE: true, unix.SIGSEGV: true, unix.SIGINFO: true,
}

// dieBy ends the calling process by sig, as the command it ran died,
// without a core dump. It returns only if sig does not end a process by
// default.
func dieBy(sig syscall.Signal) {
	trace.Printf("ending by %s, as the command did", unix.SignalName(sig))
	signal.Reset(sig)
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	_ = unix.Kill(os.Getpid(), sig)
	time.Sleep(100 * time.Millisecond)
}
