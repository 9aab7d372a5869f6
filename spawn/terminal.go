//go:build linux || darwin

package spawn

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/sigstate"
	"github.com/tetherproc/tether/internal/trace"
)

// terminal is how a run stands to its terminal (the first of standard
// input, output and error that is one). Typed alone at a shell prompt,
// tether leads its own job: the command's group is given the terminal
// (handed). In the terminal's foreground as one member of a job (a make
// recipe, sh -c, a pipeline), the command stays in the job's group
// (shared), so that it and the other members use the terminal, stop on
// Ctrl-Z and end on Ctrl-C together, as they would without tether.
// Otherwise (no terminal, a background job) the command has a group of
// its own and nothing else changes.
type terminal struct {
	fd     int  // the terminal; -1 when none
	alone  bool // tether leads its job, and all of its standard files are the terminal
	handed bool
	shared bool
}

// setUp decides, before the command starts, where it stands, from std,
// its standard input, output and error.
func (t *terminal) setUp(attr *syscall.ProcAttr, std []*os.File) {
	fg, fd, ttys := -1, -1, 0
	for _, f := range std {
		if g, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP); err == nil {
			if fd < 0 {
				fg, fd = g, int(f.Fd())
			}
			ttys++
		}
	}
	if fd < 0 || fg == 0 || unix.Getpgrp() == 0 {
		// No terminal, or one whose groups lie outside this PID
		// namespace (0): nothing to hand over or share.
		return
	}
	t.fd = fd
	// Alone in its job: leads its group, and both reads and writes the
	// terminal (in a pipeline one end is a pipe).
	t.alone = unix.Getpgrp() == os.Getpid() && ttys == len(std)
	switch {
	case t.alone && fg == unix.Getpgrp():
		attr.Sys.Foreground = true
		attr.Sys.Ctty = fd
		t.handed = true
		trace.Printf("terminal on fd %d: handed to the command's group", fd)
	case t.alone:
		// A job of its own in the background: the command gets the
		// terminal when the job is brought to the foreground (resume).
	default:
		// One member of a job, in the foreground or not: the command
		// stays in the job's group, which fg and bg move whole.
		attr.Sys.Setpgid = false
		t.shared = true
		trace.Printf("terminal on fd %d: the command stays in its job's group %d", fd, unix.Getpgrp())
	}
}

// foreground reports whether tether's own group has the terminal.
func (t *terminal) foreground() bool {
	fg, err := unix.IoctlGetInt(t.fd, unix.TIOCGPGRP)
	return t.fd >= 0 && err == nil && fg == unix.Getpgrp()
}

// restore takes the terminal back for tether's own group when the
// command's group (child) still has it, so that the shell finds it as
// it left it; a terminal someone else has by now (tether went to the
// background) is left alone.
func (t *terminal) restore(child int) {
	if !t.handed {
		return
	}
	if fg, err := unix.IoctlGetInt(t.fd, unix.TIOCGPGRP); err != nil || fg != child {
		return
	}
	sigstate.SetForeground(t.fd, unix.Getpgrp())
	trace.Printf("terminal handed back to group %d", unix.Getpgrp())
}

// forwardShared passes sig on to a command in its job's group: to it
// alone (the group is the caller's, never tether's to signal), and not
// one of the terminal's own signals while the job is in the foreground:
// those reached it with the rest of the group. (Who sent a signal is not
// known to a Go program: sent to tether alone, one of those is then not
// passed on.)
func (r *supervisor) forwardShared(sig syscall.Signal) {
	if sigstate.FromTerminal(sig) && r.term.foreground() {
		trace.Printf("%s not forwarded: the terminal sends it to the command's group too", unix.SignalName(sig))
		return
	}
	if !r.init.Signal(sig) {
		_ = unix.Kill(r.child, sig)
	}
	trace.Printf("forwarded %s to the command", unix.SignalName(sig))
}

// suspend stops tether as its command stopped (Ctrl-Z, a background read
// of the terminal, a SIGSTOP in the terminal's foreground), so that the
// shell sees a stopped job and gets its prompt back. It returns once
// tether is continued; resume then continues the command. A namespace's
// init cannot stop: there it continues the command instead.
func (r *supervisor) suspend(sig syscall.Signal) {
	if !stopSignal(sig) && !(r.term.handed || r.term.shared) {
		return // a SIGSTOP from elsewhere: not the terminal's business
	}
	if !r.cfg.SoleReaper {
		// A program with work of its own is not stopped with its
		// command: the command stays stopped until it is continued.
		trace.Printf("command %d stopped by %s; the calling program goes on", r.child, unix.SignalName(sig))
		return
	}
	if os.Getpid() == 1 || os.Getppid() == 0 {
		// As init tether cannot stop. A Ctrl-Z would leave the
		// command stopped for good: continue it. A background read
		// of the terminal would only stop it again: leave it.
		if sig == unix.SIGTSTP || sig == unix.SIGSTOP {
			trace.Printf("command %d stopped by %s; as init tether cannot stop: continuing it", r.child, unix.SignalName(sig))
			if !r.init.Signal(unix.SIGCONT) {
				_ = unix.Kill(r.child, unix.SIGCONT)
			}
		}
		return
	}
	r.late.waitSoon()
	// A CONT that came meanwhile would be lost to the SIGSTOP below.
	for {
		select {
		case s := <-r.sigs:
			if s == syscall.SIGCONT {
				r.resume()
				return
			}
			r.pending = append(r.pending, s)
			continue
		default:
		}
		break
	}
	if (sig == unix.SIGTTIN || sig == unix.SIGTTOU) && r.term.fd >= 0 {
		// Stopped for a read or write from the background, but in the
		// foreground already (fg came first): the shell's CONT may
		// have reached tether and not yet its channel, and a stop now
		// would outlast it.
		if r.term.foreground() {
			trace.Printf("command %d stopped by %s, but the job is in the foreground: continuing it", r.child, unix.SignalName(sig))
			r.resume()
			return
		}
	}
	trace.Printf("command %d stopped by %s: stopping too", r.child, unix.SignalName(sig))
	_ = unix.Kill(os.Getpid(), unix.SIGSTOP)
}

// resume continues the command when tether is continued (fg, bg, kill
// -CONT). When tether leads its job and has the terminal again (fg, also
// of a job started with &), the command's group is given it first.
func (r *supervisor) resume() {
	if !r.term.shared && r.term.alone {
		if r.term.foreground() {
			sigstate.SetForeground(r.term.fd, r.child)
			r.term.handed = true
			trace.Printf("terminal handed to the command's group")
		}
	}
	r.forward(syscall.SIGCONT)
}
