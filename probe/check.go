package probe

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// attempts bounds how often Check starts over when the PID changed hands
// while it was being read.
const attempts = 3

// execWait bounds how long Check waits for a process in the middle of an
// execve to lay out its environment. The window is normally microseconds;
// the bound is for a loaded machine, and past it the verdict is
// Unverifiable rather than a guess. It is waited only for a process of
// the caller's own real uid younger than proc.ExecWindow: anyone can make
// a process that reads as mid-execve for good, and a scan that waited on
// each of another user's would wait as long as they liked.
const execWait = 500 * time.Millisecond

// Check reads the process pid and gives its [Verdict]. It signals nothing.
// The error is only for bad input (pid <= 0, an invalid [Query]);
// everything about the process itself, failures to read it included, is
// in the [Report]: a process that cannot be read is [Unverifiable], never
// a guess.
//
// A PID can change hands while it is read; Check reads the start time
// before and after the environment and starts over when they differ. A
// process caught in the middle of an execve is waited out for up to half
// a second.
func Check(pid int, opts Query) (Report, error) {
	if pid <= 0 {
		return Report{}, fmt.Errorf("invalid PID %d: must be a positive number", pid)
	}
	if err := opts.Validate(); err != nil {
		return Report{}, err
	}
	var r Report
	pause, waited := time.Millisecond, time.Duration(0)
	for i := 0; i < attempts; {
		var o outcome
		r, o = checkOnce(pid, opts)
		if o == settled {
			break
		}
		if o == recycled {
			i++
			continue
		}
		if waited >= execWait || !mayWaitExec(r) {
			break
		}
		time.Sleep(pause)
		waited += pause
		pause *= 2
	}
	r.Tethered = r.Verdict.Tethered()
	traceCheck(r)
	return r, nil
}

// traceCheck logs the verdict on r and the kind of why, with the error
// when it has one.
func traceCheck(r Report) {
	switch {
	case !trace.On():
	case r.Why.Err != nil:
		trace.Printf("check %d: %s: %s: %v", r.PID, r.Verdict, r.Why.Kind, r.Why.Err)
	case r.Why.Kind != "":
		trace.Printf("check %d: %s: %s", r.PID, r.Verdict, r.Why.Kind)
	default:
		trace.Printf("check %d: %s", r.PID, r.Verdict)
	}
}

// mayWaitExec reports whether the process of r, caught in the middle of
// an execve, is to be waited out: the caller's own, and young.
func mayWaitExec(r Report) bool {
	return r.UID != nil && *r.UID == os.Getuid() && proc.Host().Young(r.StartTime)
}

// outcome says whether a report from checkOnce can be given.
type outcome int

const (
	settled  outcome = iota
	recycled         // the start time changed between the first and the last read
	inExec           // the process is in the middle of an execve
)

// checkOnce reads the process once. It returns recycled when the start
// time changed between the first and the last read: the PID changed hands
// under us, and the environment read may belong to either process. It
// returns inExec, with an Unverifiable report, when the environment read
// as empty because an execve had not yet laid it out.
func checkOnce(pid int, opts Query) (r Report, o outcome) {
	r.PID = pid
	fs := proc.Host()
	p, err := fs.Process(pid)
	if err != nil {
		return failed(r, err), settled
	}
	r.PPID, r.PGID, r.StartTime, r.Comm = p.PPID, p.PGID, p.StartTime, p.Comm
	if p.UID >= 0 {
		uid := p.UID
		r.UID = &uid
	}
	if p.Zombie {
		r.Verdict, r.Why = Zombie, Why{Kind: Exited}
		return r, settled
	}
	if p.KernelThread {
		r.Verdict, r.Why = Foreign, Why{Kind: KernelThread}
		return r, settled
	}
	env, envErr := fs.Environ(pid)
	if errors.Is(envErr, proc.ErrExecuting) {
		return failed(r, envErr), inExec
	}
	r.Command, _ = fs.Cmdline(pid)

	again, err := fs.Stat(pid)
	switch {
	case err != nil:
		return failed(r, err), settled
	case again.StartTime != p.StartTime:
		return r, recycled
	case again.Zombie():
		// Exited while being read; a zombie's environ is gone (ESRCH) or
		// empty, depending on the kernel.
		r.Verdict, r.Why = Zombie, Why{Kind: Exited}
		return r, settled
	case envErr != nil:
		return failed(r, envErr), settled
	}

	judge(&r, env, p, opts)
	r.Command = unpadded(r.Command)
	return r, settled
}

// unpadded is a command line without the padding a process that set its
// title leaves after it (nginx, setproctitle write the title over the
// whole area and fill the rest with NULs or spaces): empty arguments at
// the end, spaces at the end of the last. It is taken once the verdict
// is made, which reads the area as it is.
func unpadded(args []string) []string {
	for len(args) > 0 && strings.TrimRight(args[len(args)-1], " ") == "" {
		args = args[:len(args)-1]
	}
	if n := len(args); n > 0 {
		args[n-1] = strings.TrimRight(args[n-1], " ")
	}
	return args
}

// judge gives r its verdict from the environment read back: tethered
// (supervised or stranded) by its markers or its run's container,
// foreign, or unverifiable when what is left of the environment cannot
// say.
func judge(r *Report, env []string, p proc.Process, opts Query) {
	m := opts.Markers.WithDefaults()
	r.Name, _ = lookup(env, m.NameVar)
	r.RunID, _ = lookup(env, marker.RunIDVar)
	if !m.Match(env, opts.Name) && !marked(m, env) {
		// No marker at all: cleared, overwritten, or never there. A
		// container tied to a run still says whose it is.
		cenv, where, ok := containerStamp(r, p)
		if !ok {
			cenv, where, ok = recordStamp(p)
		}
		if ok && m.Match(cenv, opts.Name) {
			r.Container = where
			r.Name, _ = lookup(cenv, m.NameVar)
			r.RunID, _ = lookup(cenv, marker.RunIDVar)
			r.Verdict, r.Why = strandedness(r, cenv, p)
			return
		}
	}
	if !m.Match(env, opts.Name) {
		r.Verdict, r.Why = Foreign, mismatch(m, env, opts.Name)
		if !marked(m, env) && proc.Overwritten(env, r.Command) {
			// The markers may have been there: what is left cannot say.
			r.Verdict, r.Why = Unverifiable, Why{Kind: Overwritten}
		}
		return
	}
	r.Verdict, r.Why = strandedness(r, env, p)
}

// strandedness applies the protocol: stranded when the process named by
// TETHER_SUPERVISOR is gone, recycled or a zombie; without a usable entry,
// stranded when the parent is PID 1.
func strandedness(r *Report, env []string, p proc.Process) (Verdict, Why) {
	v, ok := lookup(env, marker.SupervisorVar)
	if ok {
		if s, err := parseSupervisor(v); err == nil {
			sr := &SupervisorReport{PID: s.PID, StartTime: s.StartTime}
			r.Supervisor = sr
			host, why := locateSupervisor(r.PID, env, s, sr)
			if why.Kind != "" {
				sr.State = SupervisorUnknown
				return Unverifiable, why
			}
			state := supervisorState(host, s.StartTime)
			sr.State = state
			switch state {
			case SupervisorAlive:
				return Supervised, Why{}
			case SupervisorUnknown:
				return Supervised, Why{Kind: SupervisorUnreadable}
			default:
				return Stranded, Why{Kind: SupervisorEnded}
			}
		}
	}
	why := Why{Kind: NoSupervisorVar, Var: marker.SupervisorVar}
	if ok {
		why = Why{Kind: BadSupervisorVar, Var: marker.SupervisorVar, Value: v}
	}
	if p.PPID == 1 {
		return Stranded, why
	}
	return Supervised, why
}

// supervisorState says what became of the supervisor, found at PID pid
// of this /proc (0: not found at all).
func supervisorState(pid int, start uint64) SupervisorState {
	if pid == 0 {
		return SupervisorGone
	}
	sp, err := proc.Host().Process(pid)
	var te *proc.ThreadError
	switch {
	case errors.Is(err, proc.ErrGone):
		return SupervisorGone
	case errors.As(err, &te):
		return SupervisorReused
	case err != nil:
		return SupervisorUnknown
	case sp.StartTime != start:
		return SupervisorReused
	case sp.Zombie:
		return SupervisorZombie
	}
	return SupervisorAlive
}

// tableNamespace is the PID namespace of this process's /proc, which
// does not change while it runs.
var tableNamespace = sync.OnceValues(proc.Host().TableNamespace)

// locateSupervisor finds the supervisor's PID as this /proc numbers it.
// TETHER_SUPERVISOR holds the PID the supervisor has in its own PID
// namespace (marker.PIDNamespaceVar, or else the tethered process's own); from
// another namespace, that PID names some other process here, so it is
// mapped through the NSpid lines of the namespace's processes. Where it
// cannot be mapped, why says so (its Kind set) and the verdict is
// unverifiable, never stranded.
func locateSupervisor(pid int, env []string, s procid.ID, sr *SupervisorReport) (host int, why Why) {
	fs := proc.Host()
	var ns uint64
	var err error
	if v, ok := lookup(env, marker.PIDNamespaceVar); ok {
		if ns, err = strconv.ParseUint(v, 10, 64); err != nil || ns == 0 {
			return 0, Why{Kind: BadNamespaceVar, Var: marker.PIDNamespaceVar, Value: v}
		}
	} else if ns, err = fs.PIDNamespace(pid); err != nil && !errors.Is(err, proc.ErrNoNamespaces) {
		return 0, Why{Kind: NamespaceUnreadable, Err: err}
	}
	table, terr := tableNamespace()
	switch {
	case errors.Is(err, proc.ErrNoNamespaces) || errors.Is(terr, proc.ErrNoNamespaces):
		return s.PID, Why{} // one namespace for all
	case terr != nil:
		return 0, Why{Kind: TableUnknown, Err: terr}
	case ns == table:
		return s.PID, Why{}
	}
	sr.Namespace = ns
	host, visible, complete := fs.FindInNamespace(ns, s.PID, s.StartTime, pid)
	switch {
	case host != 0:
		sr.HostPID = host
		return host, Why{}
	case !visible:
		return 0, Why{Kind: SupervisorHidden}
	case !complete:
		return 0, Why{Kind: SupervisorUnresolved}
	}
	return 0, Why{}
}

// failed is r for a process that could not be read: gone, a thread, or
// unverifiable for err.
func failed(r Report, err error) Report {
	var te *proc.ThreadError
	switch {
	case errors.As(err, &te):
		r.Verdict, r.Why = Gone, Why{Kind: Thread, Leader: te.TGID}
	case errors.Is(err, proc.ErrGone):
		r.Verdict, r.Why = Gone, Why{Kind: NoProcess}
	default:
		r.Verdict, r.Why = Unverifiable, Why{Kind: Unreadable, Err: err}
	}
	return r
}
