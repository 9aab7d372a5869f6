package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

// The driver of client.mjs for TestMCP (the configuration it is given,
// what it says, the process it is), and the server's tree it started:
// taken from /proc, watched until it is gone, ended at cleanup.

// mcpCall is the tool call a client makes after tools/list.
type mcpCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// mcpConfig is a stdio server as an MCP client's configuration names it,
// plus the call to make: client.mjs's CONFIG.
type mcpConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	Call    *mcpCall          `json:"call,omitempty"`
}

// mcpHello is what client.mjs says once connected.
type mcpHello struct {
	Client int             `json:"client"`
	PID    int             `json:"pid"`
	Server json.RawMessage `json:"server"`
	Tools  json.RawMessage `json:"tools"`
	Result json.RawMessage `json:"result"`
}

// mcpClient is a running client.mjs. Its stdin and stdout are pipes
// whose ends the test owns (*os.File, so that cmd.Wait closes none of
// them and no read races it); its stderr, and the server's, which the
// SDK lets it inherit, a file, read whole when a failure quotes it.
type mcpClient struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      *os.File      // the test's end of the client's stdin
	lines   chan string   // the client's stdout, line by line; closed at its end
	done    chan struct{} // closed once cmd.Wait has returned
	errPath string
}

// startMCPClient starts client.mjs with config (JSON) and the scenario
// it is to play, in env; whatever is left of it is killed at cleanup.
func startMCPClient(t *testing.T, fx mcpFixture, config []byte, scenario string, env []string) *mcpClient {
	t.Helper()
	inR, inW := pipe(t)
	outR, outW := pipe(t)
	c := &mcpClient{t: t, in: inW, lines: make(chan string), done: make(chan struct{}),
		errPath: filepath.Join(t.TempDir(), "stderr")}
	errFile, err := os.Create(c.errPath)
	if err != nil {
		t.Fatal(err)
	}
	c.cmd = exec.Command(fx.node, "client.mjs", string(config), scenario)
	c.cmd.Dir = fx.dir
	c.cmd.Env = append(proctest.CleanEnv(), env...)
	c.cmd.Stdin, c.cmd.Stdout, c.cmd.Stderr = inR, outW, errFile
	err = c.cmd.Start()
	// The client has its own copies now: with ours of its stdout's write
	// end closed, the reader meets the end of it once the client is gone.
	errFile.Close()
	inR.Close()
	outW.Close()
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.cmd.Wait(); close(c.done) }()
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<22)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			_ = c.cmd.Process.Kill()
			<-c.done
		}
		outR.Close()
		for range c.lines {
		}
		<-readerDone
	})
	return c
}

// stderr is what the client and the server have written to stderr so far.
func (c *mcpClient) stderr() string {
	b, _ := os.ReadFile(c.errPath)
	return string(b)
}

// next is the client's next line of stdout, which it must write within
// the time given; what names the line for the failure.
func (c *mcpClient) next(what string, within time.Duration) string {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("client.mjs ended before %s; its stderr:\n%s", what, c.stderr())
		}
		return l
	case <-time.After(within):
		c.t.Fatalf("no %s from client.mjs within %v; its stderr:\n%s", what, within, c.stderr())
	}
	return ""
}

// end ends the session as scenario says: kill is SIGKILL of the client;
// the others are the line on its stdin that has it close, exit or drop.
func (c *mcpClient) end(scenario string) {
	c.t.Helper()
	if scenario == "kill" {
		if err := c.cmd.Process.Kill(); err != nil {
			c.t.Fatal(err)
		}
		return
	}
	if _, err := c.in.Write([]byte("go\n")); err != nil {
		c.t.Fatal(err)
	}
}

// finish waits for the client's own end: after close and drop it says
// it closed or dropped (clientScenario), then exits when its input ends;
// after exit it exits by itself; after kill it was killed. It must exit
// 0 where it was not killed, and print no Go traceback of tether's.
func (c *mcpClient) finish(scenario, clientScenario string) {
	c.t.Helper()
	switch scenario {
	case "close", "drop":
		done := c.next("report of "+scenario, 10*time.Second)
		if !strings.Contains(done, `"done":"`+clientScenario+`"`) || strings.Contains(done, `"error"`) {
			c.t.Fatalf("client.mjs reported %s, want {\"done\":%q}", done, clientScenario)
		}
		c.in.Close()
	}
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		c.t.Fatalf("client.mjs still running 10 s after its %s; its stderr:\n%s", scenario, c.stderr())
	}
	if scenario != "kill" && c.cmd.ProcessState.ExitCode() != 0 {
		c.t.Errorf("client.mjs: %v, want exit 0; its stderr:\n%s", c.cmd.ProcessState, c.stderr())
	}
	wantNoTraceback(c.t, "tether (through client.mjs)", c.stderr())
}

// watchGone watches members every 10 ms from start (the client's end)
// until all are gone, and says after how long; or, when some are still
// running once window has passed, -1 and those, each as PID:name.
func watchGone(members []procid.ID, start time.Time, window time.Duration) (ms int64, left []string) {
	for {
		alive := 0
		for _, m := range members {
			if ptree.Alive(proc.Host(), m) {
				alive++
			}
		}
		if alive == 0 {
			return time.Since(start).Milliseconds(), nil
		}
		if time.Since(start) > window {
			for _, m := range members {
				if ptree.Alive(proc.Host(), m) {
					left = append(left, fmt.Sprintf("%d:%s", m.PID, mcpName(m.PID)))
				}
			}
			return -1, left
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mcpTree is the process pid and its live descendants, as /proc shows
// them now.
func mcpTree(t *testing.T, pid int) []procid.ID {
	t.Helper()
	st, err := proc.Host().Stat(pid)
	if err != nil || st.Zombie() {
		t.Fatalf("the transport's process %d: %v (state %c); want it running", pid, err, st.State)
	}
	return append([]procid.ID{{PID: pid, StartTime: st.StartTime}}, ptree.Subtree(proc.Host(), pid, 0)...)
}

// mcpName is pid's name for the table: its command line's first word's
// base name, and the script node runs.
func mcpName(pid int) string {
	args, err := proc.Host().Cmdline(pid)
	if err != nil || len(args) == 0 {
		st, err := proc.Host().Stat(pid)
		if err != nil {
			return "?"
		}
		return st.Comm
	}
	name := filepath.Base(args[0])
	if len(args) > 1 && (name == "node" || name == "tether") {
		if name == "tether" && args[1] == "run" {
			return "tether"
		}
		arg := args[1]
		if arg == "-e" {
			return "node(-e)"
		}
		return name + "(" + filepath.Base(arg) + ")"
	}
	if name == "npm" || strings.HasPrefix(name, "npm ") {
		return "npm-exec"
	}
	return strings.Fields(name)[0]
}

// mcpEnd ends those of ms still running (the test's own descendants):
// each is opened, checked to be the same process (PID and start time),
// then sent SIGKILL through the handle.
func mcpEnd(ms []procid.ID) {
	for _, m := range ms {
		h, err := pidfd.Open(proc.Host(), m.PID)
		if err != nil {
			continue
		}
		if ptree.Alive(proc.Host(), m) {
			_ = h.Signal(syscall.SIGKILL)
		}
		h.Close()
	}
}
