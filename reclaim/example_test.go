package reclaim_test

import (
	"fmt"

	"github.com/tetherproc/tether/reclaim"
)

// Ports come from command lines; ParsePort names the bad value.
func ExampleParsePort() {
	for _, s := range []string{"8080", "0", "70000", "http"} {
		p, err := reclaim.ParsePort(s)
		fmt.Println(p, err)
	}
	// Output:
	// 8080 <nil>
	// 0 invalid port "0": must be 1-65535
	// 0 invalid port "70000": must be 1-65535
	// 0 invalid port "http": not a number
}
