package mcpconfig_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tetherproc/tether/internal/mcpconfig"
)

// A Cursor file's stdio server wrapped, written with its backup beside
// it, and given back.
func ExampleDocument_Wrap() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}`), 0o600)

	w := mcpconfig.Wrapping{
		Command: "/usr/bin/tether",
		Program: "tether",
		Prefix:  func(server string) []string { return []string{"run", "--name", server, "--"} },
	}
	loc := mcpconfig.Location{Client: mcpconfig.Cursor, Path: path}
	doc, err := mcpconfig.Open(loc, w)
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, _ := doc.Wrap()
	fmt.Println(string(plan.Data))
	mcpconfig.Commit([]mcpconfig.Plan{plan}, time.Now())

	doc, _ = mcpconfig.Open(loc, w)
	plan, _ = doc.Unwrap()
	fmt.Println(string(plan.Data))
	// Output:
	// {"mcpServers": {"memory": {"command": "/usr/bin/tether", "args": ["run", "--name", "memory", "--", "npx", "-y", "@modelcontextprotocol/server-memory"]}}}
	// {"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}
}
