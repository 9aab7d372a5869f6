package probe_test

import (
	"fmt"

	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/procid"
)

// A supervisor stamps its child's environment; later, anyone can tell
// whether an environment read back from the kernel is that child's.
func ExampleMarkers_Environ() {
	stamp := probe.Stamp{
		Name:       "web",
		Supervisor: procid.ID{PID: 4200, StartTime: 31790},
		RunID:      "4b1c0e5f2a9d4c7e8f0a1b2c3d4e5f60",
	}
	env := (probe.Markers{}).Environ([]string{"PATH=/usr/bin", "TETHER_NAME=stale"}, stamp)
	for _, kv := range env {
		fmt.Println(kv)
	}
	fmt.Println(probe.Markers{}.Match(env, "web"), (probe.Markers{}).Match(env, "we"))
	// Output:
	// PATH=/usr/bin
	// TETHER=1
	// TETHER_NAME=web
	// TETHER_SUPERVISOR=4200:31790
	// TETHER_RUN_ID=4b1c0e5f2a9d4c7e8f0a1b2c3d4e5f60
	// true false
}

// Another supervisor's scheme, recognised entry by entry.
func ExampleMarkers_Match() {
	seed := probe.Markers{MarkerVar: "SYSTEMPROMPT_SUBPROCESS", NameVar: "MCP_SERVICE_ID"}
	env := []string{"SYSTEMPROMPT_SUBPROCESS=1", "MCP_SERVICE_ID=files-2"}
	fmt.Println(seed.Match(env, "files-2"), seed.Match(env, "files"))
	// Output: true false
}
