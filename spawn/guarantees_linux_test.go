package spawn_test

import (
	"testing"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/spawn"
)

// A Host says what ties its children to the program here: on Linux's full
// path the kernel's ties; on the portable path (macOS's) none but the
// watchdog, which it has only with Reexec.
func TestHostGuarantees(t *testing.T) {
	pidfds, _ := proc.Pidfds()
	for _, reexec := range []bool{false, true} {
		h, err := spawn.NewHost(spawn.HostOptions{Reexec: reexec})
		if err != nil {
			t.Fatal(err)
		}
		want := spawn.Guarantees{ParentDeathSignal: true, Cgroups: true, NoPIDReuse: pidfds, Watchdog: reexec}
		if portable {
			want = spawn.Guarantees{Watchdog: reexec}
		}
		if got := h.Guarantees(); got != want {
			t.Errorf("Reexec %v: Guarantees() = %+v, want %+v", reexec, got, want)
		}
	}
}
