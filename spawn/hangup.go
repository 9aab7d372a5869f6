//go:build linux || darwin

package spawn

import (
	"context"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/hangup"
	"github.com/tetherproc/tether/internal/trace"
)

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

// watchHangup starts the watch of Options.EndOnHangup: once cmd's
// standard input has no writer and its standard output no reader left,
// a TERM comes to the run's signals, as the caller's death does, and
// the run ends as at any other TERM (package hangup says why a stdio
// server needs it). Where either is not an *os.File
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
		fd, err := hangup.Dup(s.f)
		if err != nil {
			trace.Printf("end on hang-up: the standard %s (%T) gives no descriptor to watch: %v: not watched", s.name, s.f, err)
			closeAll()
			return func() {}
		}
		fds[i] = fd
		if kind, ok := hangup.CanHangUp(fd); !ok {
			trace.Printf("end on hang-up: the standard %s is %s: not watched", s.name, kind)
			closeAll()
			return func() {}
		}
	}
	stop, err := hangup.Watch(fds[0], fds[1], func() {
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
