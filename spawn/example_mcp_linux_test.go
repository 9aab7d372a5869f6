package spawn_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/spawn"
)

// An MCP host (an agent, an editor) starts each stdio server it uses
// through its Host and talks to it with go-sdk's IOTransport over the
// command's pipes. Dropping a server (the user turned it off, a session
// ended) is Child.Stop: its whole tree ends, TERM, Grace, KILL, whether
// or not it would have ended on end-of-input; should the host die, even
// by SIGKILL, its servers end with it.
func ExampleHost_mcpServer() {
	ctx := context.Background()
	host, err := spawn.NewHost()
	if err != nil {
		panic(err)
	}
	defer host.Close(ctx)

	cmd := greeterServer() // stands in for exec.Command("npx", "-y", "SERVER")
	// Pipes of the host's own, as os/exec's StdinPipe and StdoutPipe
	// would make, but which cmd.Wait does not close under the client.
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	cmd.Stdin, cmd.Stdout = inR, outW
	child, err := host.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "greeter"}, Grace: 2 * time.Second})
	inR.Close()
	outW.Close()
	if err != nil {
		panic(err)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		panic(err)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "tether"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)

	// The host drops the server: its tree is ended, then the session
	// closed, and the command waited for, as after exec.Cmd.Start.
	if err := child.Stop(ctx); err != nil {
		panic(err)
	}
	_ = session.Close()
	fmt.Println(cmd.Wait())
	// Output:
	// Hello, tether
	// signal: terminated
}

// modeGreeter is an MCP server over stdio with one tool, greet, that
// never ends on end-of-input: only a signal ends it.
var modeGreeter = proctest.Register("mcp-greeter", func() {
	server := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "v1.0.0"}, nil)
	type args struct {
		Name string `json:"name"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "say hello"}, func(ctx context.Context, req *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + a.Name}}}, nil, nil
	})
	_ = server.Run(context.Background(), &mcp.StdioTransport{})
	for { // deaf after its client: only a signal ends it
		time.Sleep(time.Hour)
	}
})

// greeterServer is the command of the greeter server: this test binary
// in that helper mode.
func greeterServer() *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(proctest.CleanEnv(), proctest.Mode(modeGreeter))
	return cmd
}
