package probe

import (
	"errors"
	"fmt"
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
	for i := 0; i < attempts; i++ {
		var stable bool
		r, stable = checkOnce(pid, opts)
		if stable {
			break
		}
	}
	r.Tethered = r.Verdict.Tethered()
	return r, nil
}

// checkOnce returns stable=false when the process's start time changed
// between the first and the last read: the PID was recycled under us, and
// the environment read may belong to either process.
func checkOnce(pid int, opts Options) (r Report, stable bool) {
	r.PID = pid
	p, err := ReadProcess(pid)
	if err != nil {
		return failed(r, err), true
	}
	r.PPID, r.PGID, r.StartTime, r.Comm = p.PPID, p.PGID, p.Start, p.Comm
	if p.UID >= 0 {
		uid := p.UID
		r.UID = &uid
	}
	if p.Zombie {
		r.Verdict, r.Reason = Zombie, "exited, not yet reaped by its parent"
		return r, true
	}
	if p.KernelThread {
		r.Verdict, r.Reason = Foreign, "a kernel thread"
		return r, true
	}
	env, envErr := ReadEnviron(pid)
	r.Command, _ = ReadCmdline(pid)

	again, err := readStat(pid)
	switch {
	case err != nil:
		return failed(r, err), true
	case again.Start != p.Start:
		return r, false
	case again.Zombie():
		// Exited while being read; a zombie's environ is gone (ESRCH) or
		// empty, depending on the kernel.
		r.Verdict, r.Reason = Zombie, "exited, not yet reaped by its parent"
		return r, true
	case envErr != nil:
		return failed(r, envErr), true
	}

	m := opts.Markers.orDefault()
	r.Name, _ = Lookup(env, m.NameVar)
	r.RunID, _ = Lookup(env, RunIDVar)
	if !m.Match(env, opts.Name) {
		r.Verdict, r.Reason = Foreign, m.mismatch(env, opts.Name)
		return r, true
	}
	r.Verdict, r.Reason = strandedness(&r, env, p)
	return r, true
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
