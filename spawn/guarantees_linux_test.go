package spawn_test

import (
	"testing"

	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/spawn"
)

// A Host says what ties its children to the program here: on Linux's full
// path the kernel's ties; on the portable path (macOS's) none but the
// watchdog, which it has when main called spawn.Init (as the test
// binary's does) and the Host was not made without one.
func TestHostGuarantees(t *testing.T) {
	pidfds, _ := pidfd.Pidfds()
	for _, watchdog := range []bool{false, true} {
		newHost := spawn.NewHostWithoutWatchdog
		if watchdog {
			newHost = spawn.NewHost
		}
		h, err := newHost()
		if err != nil {
			t.Fatal(err)
		}
		want := spawn.Guarantees{ParentDeathSignal: true, Cgroups: true, NoPIDReuse: pidfds, Watchdog: watchdog}
		if portable {
			want = spawn.Guarantees{Watchdog: watchdog}
		}
		if got := h.Guarantees(); got != want {
			t.Errorf("watchdog %v: Guarantees() = %+v, want %+v", watchdog, got, want)
		}
	}
}
