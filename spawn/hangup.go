//go:build linux || darwin

package spawn

import (
	"context"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/trace"
)

// A stdio server (an MCP server, a language server) is talked to
// through its standard input and output alone. A client that drops one
// without ending it (a reconnect, a session closed, the client's own
// bug) leaves it with no writer of its input and no reader of its
// output: nobody can reach it again, and one that does not end on
// end-of-input runs for good. The kernel says so without a byte being
// read: a pipe's read end reports POLLHUP once its last writer has
// closed (unread data or not), its write end POLLERR once its last
// reader has, a socket POLLHUP once its peer has closed. Both ends
// must have hung up: a client that closes the input alone is ending
// the server the usual way, and still reads what it answers.

// watchEnds starts the watches of the ends that come from outside the
// signals, each a TERM into the run's signals, handled there as one sent
// to the program: ctx's end, and with Options.EndOnHangup, the client's
// hang-up. cancelled reports whether ctx's end came; stop ends the watch
// of ctx (the hang-up's ends in finish, with the run's other watches).
func (r *supervisor) watchEnds(ctx context.Context, cmd *exec.Cmd) (cancelled func() bool, stop func()) {
	if r.cfg.EndOnHangup {
		r.stopHangup = r.watchHangup(cmd)
	}
	var done atomic.Bool
	stopCtx := context.AfterFunc(ctx, func() {
		done.Store(true)
		r.sendTerm()
	})
	return done.Load, func() { stopCtx() }
}

// sendTerm hands the loop a TERM from outside the signals.
func (r *supervisor) sendTerm() {
	select {
	case r.sigs <- syscall.SIGTERM:
	default: // 64 signals waiting: a TERM among them is on its way
	}
}

// dupStdio is a descriptor of f's own for the watch, closed by it,
// so that f may be closed meanwhile; taken without f.Fd, which would
// make the file description (the client's and the command's as well)
// blocking.
func dupStdio(f *os.File) (int, error) {
	if f == nil {
		return -1, os.ErrInvalid
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	cerr := rc.Control(func(raw uintptr) {
		fd, err = unix.FcntlInt(raw, unix.F_DUPFD_CLOEXEC, 0)
	})
	if cerr != nil {
		return -1, cerr
	}
	return fd, err
}

// canHangUp says whether fd, a command's input or output, can hang up:
// a pipe or a socket. A terminal, a file or the null device has no
// other end to lose.
func canHangUp(fd int) (kind string, ok bool) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "unreadable (" + err.Error() + ")", false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "a pipe", true
	case unix.S_IFSOCK:
		return "a socket", true
	case unix.S_IFCHR:
		return "a character device (a terminal or the null device)", false
	}
	return "a file", false
}

// watchHangup starts the watch of Options.EndOnHangup: once cmd's
// standard input has no writer and its standard output no reader left,
// a TERM comes to the run's signals, as the caller's death does, and
// the run ends as at any other TERM. Where either is not an *os.File
// that is a pipe or a socket there is nothing to watch, and the trace
// says so. stop, never nil, ends the watch.
func (r *supervisor) watchHangup(cmd *exec.Cmd) (stop func()) {
	in, _ := cmd.Stdin.(*os.File)
	out, _ := cmd.Stdout.(*os.File)
	fds := []int{-1, -1}
	closeAll := func() {
		for _, fd := range fds {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}
	for i, s := range []struct {
		name string
		f    *os.File
	}{{"input", in}, {"output", out}} {
		fd, err := dupStdio(s.f)
		if err != nil {
			trace.Printf("end on hang-up: the standard %s (%T) gives no descriptor to watch: %v: not watched", s.name, s.f, err)
			closeAll()
			return func() {}
		}
		fds[i] = fd
		if kind, ok := canHangUp(fd); !ok {
			trace.Printf("end on hang-up: the standard %s is %s: not watched", s.name, kind)
			closeAll()
			return func() {}
		}
	}
	stop, err := watchHangup(fds[0], fds[1], func() {
		trace.Printf("the client hung up (no writer of the standard input, no reader of the output): TERM")
		r.sendTerm()
	})
	if err != nil {
		trace.Printf("end on hang-up: not watched: %v", err)
		return func() {}
	}
	trace.Printf("end on hang-up: watching the standard input and output")
	return stop
}
