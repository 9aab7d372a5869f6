package marker_test

import (
	"fmt"

	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// A supervisor checks what it was given, stamps its child's environment,
// and anyone can later tell whether an environment is that child's.
func Example() {
	if err := marker.ValidateName("my server"); err != nil {
		fmt.Println(err)
	}
	stamp := marker.Stamp{
		Name:       marker.NameFor("/usr/local/bin/my server"),
		Supervisor: procid.ID{PID: 4200, StartTime: 31790},
		RunID:      marker.NewRunID(),
	}
	if err := stamp.Validate(); err != nil {
		panic(err)
	}
	env := (marker.Markers{}).Environ([]string{"PATH=/usr/bin"}, stamp)
	fmt.Println(stamp.Name, (marker.Markers{}).Match(env, "my_server"))
	// Output:
	// invalid name "my server": character ' ' at 2 (want A-Z a-z 0-9 . _ -)
	// my_server true
}

// The stamp replaces what an enclosing run wrote, and nothing else.
func ExampleMarkers_Environ() {
	stamp := marker.Stamp{
		Name:       "web",
		Supervisor: procid.ID{PID: 4200, StartTime: 31790},
		RunID:      "4b1c0e5f2a9d4c7e8f0a1b2c3d4e5f60",
	}
	env := (marker.Markers{}).Environ([]string{"PATH=/usr/bin", "TETHER_NAME=stale"}, stamp)
	for _, kv := range env {
		fmt.Println(kv)
	}
	fmt.Println(marker.Markers{}.Match(env, "web"), (marker.Markers{}).Match(env, "we"))
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
	seed := marker.Markers{MarkerVar: "SYSTEMPROMPT_SUBPROCESS", NameVar: "MCP_SERVICE_ID"}
	env := []string{"SYSTEMPROMPT_SUBPROCESS=1", "MCP_SERVICE_ID=files-2"}
	fmt.Println(seed.Match(env, "files-2"), seed.Match(env, "files"))
	// Output: true false
}
