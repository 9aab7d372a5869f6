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
