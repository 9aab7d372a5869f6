//go:build !tetherportable

package spawn_test

import (
	"fmt"

	"github.com/tetherproc/tether/spawn"
)

// A program that runs on Linux and macOS reads what its Host guarantees
// rather than assuming it: on macOS ParentDeathSignal and Cgroups are
// false, and only the watchdog (which main's call of spawn.Init allows) outlives a SIGKILL of the
// program.
func ExampleHost_Guarantees() {
	host, err := spawn.NewHost()
	if err != nil {
		panic(err)
	}
	g := host.Guarantees()
	fmt.Println("parent-death signal:", g.ParentDeathSignal)
	fmt.Println("watchdog:", g.Watchdog)
	fmt.Println("cgroups:", g.Cgroups)
	// Output:
	// parent-death signal: true
	// watchdog: true
	// cgroups: true
}
