package probe

import (
	"testing"

	"github.com/tetherproc/tether/procid"
)

func TestSupervisor(t *testing.T) {
	s, err := parseSupervisor("4200:31337")
	if err != nil || s != (procid.ID{PID: 4200, StartTime: 31337}) || s.String() != "4200:31337" {
		t.Errorf("parseSupervisor = %+v, %v", s, err)
	}
	for _, bad := range []string{"", "4200", ":1", "0:1", "-1:1", "x:1", "1:", "1:-2", "1:x", "1:2:3"} {
		if _, err := parseSupervisor(bad); err == nil {
			t.Errorf("parseSupervisor(%q): no error", bad)
		}
	}
}

// The supervisor's PID as the reader numbers it: the one found from
// another namespace where there is one.
func TestSupervisorLocalPID(t *testing.T) {
	for _, tc := range []struct {
		s    SupervisorReport
		want int
	}{
		{SupervisorReport{PID: 4200}, 4200},
		{SupervisorReport{PID: 1, Namespace: 4026532178, HostPID: 29643}, 29643},
		{SupervisorReport{PID: 7, Namespace: 4026532178}, 7},
	} {
		if got := tc.s.LocalPID(); got != tc.want {
			t.Errorf("%+v.LocalPID() = %d, want %d", tc.s, got, tc.want)
		}
	}
}
