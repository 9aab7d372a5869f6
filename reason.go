package main

import (
	"fmt"
	"strconv"

	"github.com/tetherproc/tether/probe"
)

// reasonText is what r's verdict rests on, in words, as tether check
// prints it after the verdict and its --json gives as "reason"; "" for a
// process supervised by a supervisor found alive.
func reasonText(r probe.Report) string {
	w := r.Why
	switch w.Kind {
	case probe.Exited:
		return "exited, not yet reaped by its parent"
	case probe.KernelThread:
		return "a kernel thread"
	case probe.NoMarker:
		return fmt.Sprintf("no %s=%s in its environment", w.Var, w.Want)
	case probe.WrongMarker, probe.WrongName:
		return fmt.Sprintf("%s=%q, not %q", w.Var, w.Value, w.Want)
	case probe.NoName:
		return fmt.Sprintf("no %s in its environment (want %q)", w.Var, w.Want)
	case probe.Overwritten:
		return "environment overwritten (the process renamed itself)"
	case probe.NoSupervisorVar:
		return "no " + w.Var + parentText(r)
	case probe.BadSupervisorVar:
		return fmt.Sprintf("unusable %s=%q", w.Var, w.Value) + parentText(r)
	case probe.Thread:
		return fmt.Sprintf("%d is a thread of process %d, not a process", r.PID, w.Leader)
	case probe.NoProcess:
		return "no such process"
	case probe.Unreadable:
		return errText(w.Err)
	}
	return supervisorWhy(r)
}

// parentText is what the parent of r, tethered without a usable
// supervisor, says of it.
func parentText(r probe.Report) string {
	if r.Verdict == probe.Stranded {
		return " and its parent is PID 1"
	}
	return fmt.Sprintf("; parent %d is alive", r.PPID)
}

// supervisorWhy is what became of r's supervisor, or why it cannot be
// found; "" when nothing is to be said.
func supervisorWhy(r probe.Report) string {
	w, s := r.Why, r.Supervisor
	if s == nil {
		return string(w.Kind)
	}
	switch w.Kind {
	case probe.SupervisorUnreadable:
		return fmt.Sprintf("supervisor %d cannot be read; counted as alive", s.PID)
	case probe.SupervisorEnded:
		if s.State == probe.SupervisorReused {
			return fmt.Sprintf("supervisor %d is gone; its PID now belongs to another process", s.PID)
		}
		return fmt.Sprintf("supervisor %d is %s", s.PID, s.State)
	case probe.BadNamespaceVar:
		return fmt.Sprintf("unusable %s=%q: the namespace of supervisor %d is unknown", w.Var, w.Value, s.PID)
	case probe.NamespaceUnreadable:
		return fmt.Sprintf("the PID namespace of %d cannot be read: %v", r.PID, w.Err)
	case probe.TableUnknown:
		return fmt.Sprintf("cannot tell which PID namespace this /proc shows, to find supervisor %d: %v", s.PID, w.Err)
	case probe.SupervisorHidden:
		return fmt.Sprintf("supervisor %d is in PID namespace pid:[%d], which this /proc cannot see", s.PID, s.Namespace)
	case probe.SupervisorUnresolved:
		return fmt.Sprintf("supervisor %d of PID namespace pid:[%d] cannot be resolved: the namespaces of some processes cannot be read", s.PID, s.Namespace)
	}
	return string(w.Kind)
}

// tieText names what tied a process to its run, as check prints
// it and its JSON's "container" holds it: "cgroup:PATH", "pidns:init=PID"
// or "record:RUNID"; "" for a container of no kind.
func tieText(c probe.Container) string {
	switch c.Kind {
	case probe.InCgroup:
		return "cgroup:" + c.Cgroup
	case probe.InPIDNamespace:
		return "pidns:init=" + strconv.Itoa(c.Init)
	case probe.ByRecord:
		return "record:" + c.RunID
	}
	return ""
}
