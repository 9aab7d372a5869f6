package engines_test

import (
	"fmt"

	"github.com/tetherproc/tether/internal/engines"
)

// What a cgroup line says, before any engine is asked.
func ExampleParseCgroupLine() {
	id := "25ca90ac4453fcba261811d9aefe2f5dc49a653cc0fc6cd1d3008360d6c349ab"
	for _, line := range []string{
		"0::/system.slice/docker-" + id + ".scope",
		"0::/user.slice/user-1000.slice/user@1000.service/app.slice/vite.service",
		"0::/user.slice/user-1000.slice/session-3.scope",
	} {
		if m := engines.ParseCgroupLine(line); m != nil {
			fmt.Printf("%s %s %q %q user=%v\n", m.Kind, m.Engine, engines.ShortID(m.ID), m.Name, m.User)
		} else {
			fmt.Println("no manager")
		}
	}
	// Output:
	// container Docker "25ca90ac4453" "" user=false
	// unit  "" "vite.service" user=true
	// no manager
}
