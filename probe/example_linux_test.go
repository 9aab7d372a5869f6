package probe_test

import (
	"fmt"
	"os"

	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/probe"
)

// Check reads a live process and gives its verdict; this test binary
// carries no marker of the scheme asked for, so it is foreign.
func ExampleCheck() {
	r, err := probe.Check(os.Getpid(), probe.Query{
		Markers: marker.Markers{MarkerVar: "EXAMPLE_MARKER", NameVar: "EXAMPLE_NAME"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Verdict, r.Tethered)
	fmt.Println(r.Why.Kind, r.Why.Var, r.Why.Want)
	// Output:
	// foreign false
	// no-marker EXAMPLE_MARKER 1
}
