package probe

import (
	"errors"
	"fmt"
	"time"
)

// Options says what Check looks for.
type Options struct {
	// Markers names the marker and name variables; the zero value is
	// TETHER and TETHER_NAME.
	Markers Markers
	// Name, when set, must be the exact value of the name variable.
	Name string
}

// Validate reports bad options, naming the bad value.
func (o Options) Validate() error {
	if err := o.Markers.Validate(); err != nil {
		return err
	}
	if o.Name != "" {
		return ValidateName(o.Name)
	}
	return nil
}

// attempts bounds how often Check starts over when the PID changed hands
// while it was being read.
const attempts = 3

// execWait bounds how long Check waits for a process in the middle of an
// execve to lay out its environment. The window is normally microseconds;
// the bound is for a loaded machine, and past it the verdict is
// Unverifiable rather than a guess.
const execWait = 500 * time.Millisecond

// Check reads the process pid and gives its verdict. It signals nothing.
// The error is only for bad input (pid <= 0, invalid options); everything
// about the process itself, including failures to read it, is in the
// report.
func Check(pid int, opts Options) (Report, error) {
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
		if waited >= execWait {
			break
		}
		time.Sleep(pause)
		waited += pause
		pause *= 2
	}
	r.Tethered = r.Verdict.Tethered()
	return r, nil
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
func checkOnce(pid int, opts Options) (r Report, o outcome) {
	r.PID = pid
	p, err := ReadProcess(pid)
	if err != nil {
		return failed(r, err), settled
	}
	r.PPID, r.PGID, r.StartTime, r.Comm = p.PPID, p.PGID, p.Start, p.Comm
	if p.UID >= 0 {
		uid := p.UID
		r.UID = &uid
	}
	if p.Zombie {
		r.Verdict, r.Reason = Zombie, "exited, not yet reaped by its parent"
		return r, settled
	}
	if p.KernelThread {
		r.Verdict, r.Reason = Foreign, "a kernel thread"
		return r, settled
	}
	env, envErr := ReadEnviron(pid)
	if errors.Is(envErr, ErrExecuting) {
		return failed(r, envErr), inExec
	}
	r.Command, _ = ReadCmdline(pid)

	again, err := ReadStat(pid)
	switch {
	case err != nil:
		return failed(r, err), settled
	case again.Start != p.Start:
		return r, recycled
	case again.Zombie():
		// Exited while being read; a zombie's environ is gone (ESRCH) or
		// empty, depending on the kernel.
		r.Verdict, r.Reason = Zombie, "exited, not yet reaped by its parent"
		return r, settled
	case envErr != nil:
		return failed(r, envErr), settled
	}

	m := opts.Markers.orDefault()
	r.Name, _ = Lookup(env, m.NameVar)
	r.RunID, _ = Lookup(env, RunIDVar)
	if !m.Match(env, opts.Name) {
		r.Verdict, r.Reason = Foreign, m.mismatch(env, opts.Name)
		return r, settled
	}
	r.Verdict, r.Reason = strandedness(&r, env, p)
	return r, settled
}

// strandedness applies the protocol: stranded when the process named by
// TETHER_SUPERVISOR is gone, recycled or a zombie; without a usable entry,
// stranded when the parent is PID 1.
func strandedness(r *Report, env []string, p Process) (Verdict, string) {
	v, ok := Lookup(env, SupervisorVar)
	if ok {
		if s, err := ParseSupervisor(v); err == nil {
			state := supervisorState(s)
			r.Supervisor = &SupervisorReport{PID: s.PID, StartTime: s.Start, State: state}
			switch state {
			case SupervisorAlive:
				return Supervised, ""
			case SupervisorUnknown:
				return Supervised, fmt.Sprintf("supervisor %d cannot be read; counted as alive", s.PID)
			case SupervisorReused:
				return Stranded, fmt.Sprintf("supervisor %d is gone; its PID now belongs to another process", s.PID)
			default:
				return Stranded, fmt.Sprintf("supervisor %d is %s", s.PID, state)
			}
		}
	}
	prefix := "no " + SupervisorVar
	if ok {
		prefix = fmt.Sprintf("unusable %s=%q", SupervisorVar, v)
	}
	if p.PPID == 1 {
		return Stranded, prefix + " and its parent is PID 1"
	}
	return Supervised, fmt.Sprintf("%s; parent %d is alive", prefix, p.PPID)
}

func supervisorState(s Supervisor) SupervisorState {
	sp, err := ReadProcess(s.PID)
	var te *ThreadError
	switch {
	case errors.Is(err, ErrGone):
		return SupervisorGone
	case errors.As(err, &te):
		return SupervisorReused
	case err != nil:
		return SupervisorUnknown
	case sp.Start != s.Start:
		return SupervisorReused
	case sp.Zombie:
		return SupervisorZombie
	}
	return SupervisorAlive
}

func failed(r Report, err error) Report {
	var te *ThreadError
	switch {
	case errors.As(err, &te):
		r.Verdict, r.Reason = Gone, te.Error()
	case errors.Is(err, ErrGone):
		r.Verdict, r.Reason = Gone, "no such process"
	default:
		r.Verdict, r.Reason = Unverifiable, err.Error()
	}
	return r
}
