package main

import (
	"errors"
	"testing"

	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/reclaim"
)

// Every kind of why is worded as tether check has always printed it.
func TestReasonText(t *testing.T) {
	sup := func(st probe.SupervisorState) *probe.SupervisorReport {
		return &probe.SupervisorReport{PID: 4200, State: st, Namespace: 4026532178}
	}
	denied := errors.New("open /proc/42/environ: permission denied")
	for _, tt := range []struct {
		r    probe.Report
		want string
	}{
		{probe.Report{Verdict: probe.Supervised}, ""},
		{probe.Report{Why: probe.Why{Kind: probe.Exited}}, "exited, not yet reaped by its parent"},
		{probe.Report{Why: probe.Why{Kind: probe.KernelThread}}, "a kernel thread"},
		{probe.Report{Why: probe.Why{Kind: probe.NoMarker, Var: "TETHER", Want: "1"}}, "no TETHER=1 in its environment"},
		{probe.Report{Why: probe.Why{Kind: probe.WrongMarker, Var: "TETHER", Value: "0", Want: "1"}}, `TETHER="0", not "1"`},
		{probe.Report{Why: probe.Why{Kind: probe.NoName, Var: "TETHER_NAME", Want: "web"}}, `no TETHER_NAME in its environment (want "web")`},
		{probe.Report{Why: probe.Why{Kind: probe.WrongName, Var: "TETHER_NAME", Value: "web2", Want: "web"}}, `TETHER_NAME="web2", not "web"`},
		{probe.Report{Why: probe.Why{Kind: probe.Overwritten}}, "environment overwritten (the process renamed itself)"},
		{probe.Report{Supervisor: sup(probe.SupervisorUnknown), Why: probe.Why{Kind: probe.SupervisorUnreadable}}, "supervisor 4200 cannot be read; counted as alive"},
		{probe.Report{Supervisor: sup(probe.SupervisorReused), Why: probe.Why{Kind: probe.SupervisorEnded}}, "supervisor 4200 is gone; its PID now belongs to another process"},
		{probe.Report{Supervisor: sup(probe.SupervisorGone), Why: probe.Why{Kind: probe.SupervisorEnded}}, "supervisor 4200 is gone"},
		{probe.Report{Supervisor: sup(probe.SupervisorZombie), Why: probe.Why{Kind: probe.SupervisorEnded}}, "supervisor 4200 is zombie"},
		{probe.Report{Supervisor: sup(probe.SupervisorUnknown), Why: probe.Why{Kind: probe.BadNamespaceVar, Var: "TETHER_PIDNS", Value: "x"}}, `unusable TETHER_PIDNS="x": the namespace of supervisor 4200 is unknown`},
		{probe.Report{PID: 42, Supervisor: sup(probe.SupervisorUnknown), Why: probe.Why{Kind: probe.NamespaceUnreadable, Err: denied}}, "the PID namespace of 42 cannot be read: " + denied.Error()},
		{probe.Report{Supervisor: sup(probe.SupervisorUnknown), Why: probe.Why{Kind: probe.TableUnknown, Err: denied}}, "cannot tell which PID namespace this /proc shows, to find supervisor 4200: " + denied.Error()},
		{probe.Report{Supervisor: sup(probe.SupervisorUnknown), Why: probe.Why{Kind: probe.SupervisorHidden}}, "supervisor 4200 is in PID namespace pid:[4026532178], which this /proc cannot see"},
		{probe.Report{Supervisor: sup(probe.SupervisorUnknown), Why: probe.Why{Kind: probe.SupervisorUnresolved}}, "supervisor 4200 of PID namespace pid:[4026532178] cannot be resolved: the namespaces of some processes cannot be read"},
		{probe.Report{Verdict: probe.Stranded, PPID: 1, Why: probe.Why{Kind: probe.NoSupervisorVar, Var: "TETHER_SUPERVISOR"}}, "no TETHER_SUPERVISOR and its parent is PID 1"},
		{probe.Report{Verdict: probe.Supervised, PPID: 77, Why: probe.Why{Kind: probe.NoSupervisorVar, Var: "TETHER_SUPERVISOR"}}, "no TETHER_SUPERVISOR; parent 77 is alive"},
		{probe.Report{Verdict: probe.Stranded, PPID: 1, Why: probe.Why{Kind: probe.BadSupervisorVar, Var: "TETHER_SUPERVISOR", Value: "x"}}, `unusable TETHER_SUPERVISOR="x" and its parent is PID 1`},
		{probe.Report{Verdict: probe.Supervised, PPID: 77, Why: probe.Why{Kind: probe.BadSupervisorVar, Var: "TETHER_SUPERVISOR", Value: "x"}}, `unusable TETHER_SUPERVISOR="x"; parent 77 is alive`},
		{probe.Report{PID: 43, Why: probe.Why{Kind: probe.Thread, Leader: 42}}, "43 is a thread of process 42, not a process"},
		{probe.Report{Why: probe.Why{Kind: probe.NoProcess}}, "no such process"},
		{probe.Report{Why: probe.Why{Kind: probe.Unreadable, Err: denied}}, denied.Error()},
	} {
		if got := reasonText(tt.r); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.r.Why.Kind, got, tt.want)
		}
	}
}

// Each protection is worded as tether has always printed it.
func TestProtectedText(t *testing.T) {
	for p, want := range map[reclaim.Protection]string{
		"":                        "",
		reclaim.ProtectedPID1:     "PID 1 is never signalled",
		reclaim.ProtectedSelf:     "tether itself",
		reclaim.ProtectedAncestor: "an ancestor of tether",
	} {
		if got := protectedText(p); got != want {
			t.Errorf("%q: %q, want %q", p, got, want)
		}
	}
}
