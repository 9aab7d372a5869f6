package spawn

import (
	"fmt"
	"syscall"
	"time"

	"github.com/tetherproc/tether/marker"
)

// Options is how [Supervise] tethers and supervises its command: its
// stamp, its parent-death signal, and how the run is supervised. The
// command itself is an [exec.Cmd]. [Exec] takes [ExecOptions], a [Host]'s
// children [ChildOptions]. The zero value of each field is a sensible
// default.
//
// Nothing here asks for a watchdog: a program whose main calls [Init]
// first gets one with every run (this program started again, which ends
// the whole tree should the supervisor be killed with SIGKILL, when no
// cleanup code of the supervisor's own survives), and may contain a run
// in a PID namespace, whose init is this program too.
type Options struct {
	// Stamp is what the command's markers say; each zero field is
	// filled in: Name from the command's base name (each character
	// outside A-Z a-z 0-9 . _ - made '_'), Supervisor the calling
	// process, RunID a new random one (32 lowercase hex digits),
	// PIDNamespace the calling process's.
	marker.Stamp
	// Markers names the marker and name variables; default TETHER and
	// TETHER_NAME.
	Markers marker.Markers
	// Signal is the command's parent-death signal; default SIGTERM.
	Signal syscall.Signal

	// Supervision.

	// Grace is how long the tree gets between TERM and KILL when
	// Supervise cleans up; zero means KILL right after TERM.
	Grace time.Duration
	// OutliveParent keeps running when the caller (the shell, make) dies.
	// By default the caller's death is handled like SIGTERM.
	OutliveParent bool
	// EndOnHangup handles a hang-up of the command's client like
	// SIGTERM: the command's Stdin (an *os.File, a pipe or a socket) has
	// no writer left and its Stdout (the same) no reader, so that nothing
	// can talk to it any more, as when an MCP client drops a stdio server
	// without ending it. Nothing is read from either. Where Stdin or
	// Stdout is not a pipe or socket of an *os.File, nothing is watched.
	EndOnHangup bool
	// Forking keeps the run going once the command has exited with
	// status 0, for as long as anything of its tree is left: a launcher
	// that daemonizes (pg_ctl start, nginx's default, redis-server
	// --daemonize yes) leaves its daemon to be supervised, as systemd's
	// Type=forking does. Signals then go to every process group of the
	// tree, and the exit status is that of the last member reaped. A
	// command that exits non-zero ends the run at once, as without it.
	// Without Forking, a daemon left by a command that exited 0 is ended
	// with the rest of the tree, and OnDaemonEnded is told.
	Forking bool
	// OnDaemonEnded, when set, is told of a daemon (a process in a
	// session of its own, pid and comm) that a command which exited 0
	// left behind, as it is about to be ended with the rest of the tree
	// (without Forking): what a caller may want to tell its user. The
	// library itself writes nothing.
	OnDaemonEnded func(pid int, comm string)
	// DieBySignal has Supervise, when the command dies of a signal, end
	// the calling process by the same signal after its cleanup instead of
	// returning, so that its caller sees it killed (a shell loop stops on
	// Ctrl-C). As PID 1, which no signal ends, it returns.
	DieBySignal bool
	// OnContain, when set, is told when Contain is auto and the run got
	// a containment other than the first it tried: which, and why each
	// before it was refused ("cgroup: cgroup v2 is not mounted"), what
	// a caller may want to tell its user. The library writes nothing.
	OnContain func(got Containment, refused []string)
	// Contain has Supervise keep the whole tree in a kernel container,
	// which no descendant leaves by its own means: see [Containment]. (A
	// Host's child takes ChildOptions.Contain.)
	Contain Containment
	// SoleReaper says that the calling process has no children but the
	// run's: it is tether run, or a container's PID 1. Supervise then
	// reaps every child the process has (wait4(-1)), as an init must, and
	// takes the process's whole subtree for the run's tree. Without it,
	// as in a program that starts other children of its own, Supervise
	// reaps only its command and the orphans it can tell are its tree's
	// (by the run id in their environment, by the list of the tree it
	// keeps, by the command's process group), so that no status of the
	// program's other children is taken from their exec.Cmd, and no
	// other child of the program is signalled. With it, the signals
	// Supervise caught stay caught when it returns (into a channel no one
	// reads), and its watchdog is killed but not waited for (the
	// process's own reaper collects it): the process is to exit, and
	// giving the signals back would cost a round trip to the runtime's
	// signal thread each.
	SoleReaper bool
	// LeaveDir has Supervise change the calling process's working
	// directory to / once the command has started in it, so that the
	// directory is not kept busy (it can be unmounted) for as long as the
	// command runs elsewhere. The watchdog never keeps it.
	LeaveDir bool
}

// Validate reports the first field of o that no run can be made with:
// the stamp's name or run id, the markers' variables, a negative Grace,
// a Signal that is no signal, or a Contain that is none of the
// [Containment] constants. The zero value is valid. Supervise validates
// what it is given; a caller may validate first.
func (o Options) Validate() error {
	if err := validateStamp(o.Stamp, o.Markers, o.Signal, o.Grace); err != nil {
		return err
	}
	switch o.Contain {
	case NoContainment, ContainAuto, ContainCgroup, ContainPIDNamespace:
		return nil
	}
	return fmt.Errorf("spawn: Contain %q is none of %q, %q, %q, %q", o.Contain, NoContainment, ContainAuto, ContainCgroup, ContainPIDNamespace)
}

// validateStamp is what every options type holds: the stamp, its
// markers, the parent-death signal and the grace.
func validateStamp(s marker.Stamp, m marker.Markers, sig syscall.Signal, grace time.Duration) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("spawn: %w", err)
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("spawn: %w", err)
	}
	if sig < 0 || sig > 64 {
		return fmt.Errorf("spawn: Signal %d is no signal", int(sig))
	}
	if grace < 0 {
		return fmt.Errorf("spawn: Grace %v is negative", grace)
	}
	return nil
}
