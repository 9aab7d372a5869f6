package engines_test

import (
	"fmt"

	"github.com/tetherproc/tether/internal/engines"
)

// A holder's manager, as a caller shows it.
func ExampleManager_String() {
	for _, m := range []*engines.Manager{
		{Kind: engines.Container, Engine: engines.Docker, Name: "app-db-1", Image: "postgres:16",
			ID: "8e3f1371fb44c0b2d8a7e4f0c3e9a1b5d6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1", Project: "app", Service: "db", Proxy: true},
		{Kind: engines.Unit, Name: "nginx.service"},
		{Kind: engines.Unit, Name: "vite.service", User: true, UID: 1000},
	} {
		fmt.Println(m)
	}
	// Output:
	// container app-db-1 (postgres:16, 8e3f1371fb44) via Docker, compose app/db
	// unit nginx.service
	// user unit vite.service
}

// What a cgroup line says, before any engine is asked.
func ExampleParseCgroupLine() {
	id := "25ca90ac4453fcba261811d9aefe2f5dc49a653cc0fc6cd1d3008360d6c349ab"
	fmt.Println(engines.ParseCgroupLine("0::/system.slice/docker-" + id + ".scope"))
	fmt.Println(engines.ParseCgroupLine("0::/user.slice/user-1000.slice/user@1000.service/app.slice/vite.service"))
	fmt.Println(engines.ParseCgroupLine("0::/user.slice/user-1000.slice/session-3.scope"))
	// Output:
	// container 25ca90ac4453 via Docker
	// user unit vite.service
	// no manager
}
