package e2e

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proctest"
)

// Real MCP clients and servers, from the npm registry, through the built
// tether: the TypeScript SDK's Client and StdioClientTransport
// (testdata/mcp/client.mjs) start a server as an editor's or an agent's
// configuration names it, either plainly or as `tether run --hangup --
// SERVER...`, and then end their session one of four ways: close (the
// SDK's own shutdown), exit (without closing), kill (SIGKILL of the
// client) and drop (the client closes the server's stdin and stdout and
// stays alive). With tether in front, the server answers the same, and
// every process of its tree is gone after each of the four. Without it
// nothing is asserted: the plain runs are the baseline, logged beside
// the tethered ones, and a server that ignores the end of its input
// (testdata/mcp/deaf-server.mjs) outlives some of them.
//
// The servers and the SDK are pinned in testdata/mcp/package.json and
// its lockfile; `npm ci` there installs them (CI does, and then sets
// TETHER_TEST_MCP=1, which makes a missing install a failure rather
// than a skip). Nothing is fetched while the tests run: servers are
// started by their bin paths, or by `npm exec --offline`. CI also sets
// TETHER_TEST_MCP_RAN to a file, where each tethered case and
// TestMCPOrphans that passed write their names: its evidence, from the
// README's own test run, that they ran rather than skipped.

// mcpDeadline is how long after a client's end a tethered server's tree
// may take to be gone: a grace of tether's (5 s) at most, and time to
// spare on a busy machine.
const mcpDeadline = 10 * time.Second

// mcpBaselineWindow is how long a plain server's tree is watched after
// its client's end. The SDK's close sends TERM after 2 s and KILL after
// 4 s, and server-everything with its simulated logging on writes (and
// meets a closed socket) every 5 s; what is still there after 6 s stays.
const mcpBaselineWindow = 6 * time.Second

// mcpFixture is the installed fixture: node, npm (empty when missing)
// and the fixture's directory.
type mcpFixture struct {
	node, npm, dir string
}

// mcpSkip skips t saying why, or fails it when TETHER_TEST_MCP=1 says
// the fixture was installed and the tests must run.
func mcpSkip(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("TETHER_TEST_MCP") == "1" {
		t.Fatal(why + " (TETHER_TEST_MCP=1: the MCP tests must run)")
	}
	t.Skip(why)
}

func mcpInstalled(t *testing.T) mcpFixture {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		mcpSkip(t, "no node on PATH: the MCP tests run real Node clients and servers")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "mcp"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"sdk", "server-everything", "server-memory"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "package.json")); err != nil {
			mcpSkip(t, "@modelcontextprotocol/"+pkg+" not installed: run `npm ci --no-audit --no-fund` in e2e/testdata/mcp")
		}
	}
	npm, _ := exec.LookPath("npm")
	return mcpFixture{node: node, npm: npm, dir: dir}
}

// mcpNotRaced skips t under the race detector, whatever TETHER_TEST_MCP
// says: the MCP tests drive the built tether (not built with -race) and
// Node, and what Go of theirs runs in the test binary (pipes, /proc
// reads) is raced by every other e2e test. Under -race they would find
// nothing, for minutes of CI.
func mcpNotRaced(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("not under the race detector: the MCP tests drive the built tether and Node, which -race does not instrument; the harness they use is raced by the other e2e tests")
	}
}

// mcpRecordRan has t, once it has passed, append its name to the file
// TETHER_TEST_MCP_RAN names. go test without -v says nothing of a skip:
// the file lets CI see that the MCP tests ran in the README's own test
// run, rather than run them a second time with -v to see it.
func mcpRecordRan(t *testing.T) {
	path := os.Getenv("TETHER_TEST_MCP_RAN")
	if path == "" {
		return
	}
	t.Cleanup(func() {
		if t.Failed() || t.Skipped() {
			return
		}
		// One write to a file opened to append: the lines of parallel
		// subtests do not interleave.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			_, err = f.WriteString(t.Name() + "\n")
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			t.Errorf("TETHER_TEST_MCP_RAN: %v", err)
		}
	})
}

// mcpServer is one server of the table.
type mcpServer struct {
	name string
	npm  bool // started through npm exec: npm exec, sh, node
	// config is the server's plain configuration, with env the
	// entries that mark its processes as the test's.
	config func(fx mcpFixture, t *testing.T, env map[string]string) mcpConfig
}

var echoTether = &mcpCall{Name: "echo", Arguments: map[string]any{"message": "tether"}}

var mcpServers = []mcpServer{
	{name: "everything", config: func(fx mcpFixture, _ *testing.T, env map[string]string) mcpConfig {
		return mcpConfig{Command: fx.node, Args: []string{"node_modules/.bin/mcp-server-everything"}, Env: env, Cwd: fx.dir, Call: echoTether}
	}},
	{name: "everything-npm", npm: true, config: func(fx mcpFixture, _ *testing.T, env map[string]string) mcpConfig {
		return mcpConfig{Command: fx.npm, Args: []string{"exec", "--offline", "--no", "--", "mcp-server-everything"}, Env: env, Cwd: fx.dir, Call: echoTether}
	}},
	// server-everything with its simulated logging on (a message every
	// 5 s): a timer that keeps it running after its input ends.
	{name: "everything-log", config: func(fx mcpFixture, _ *testing.T, env map[string]string) mcpConfig {
		return mcpConfig{Command: fx.node, Args: []string{"node_modules/.bin/mcp-server-everything"}, Env: env, Cwd: fx.dir, Call: &mcpCall{Name: "toggle-simulated-logging", Arguments: map[string]any{}}}
	}},
	{name: "memory", config: func(fx mcpFixture, t *testing.T, env map[string]string) mcpConfig {
		env["MEMORY_FILE_PATH"] = filepath.Join(t.TempDir(), "memory.jsonl")
		return mcpConfig{Command: fx.node, Args: []string{"node_modules/.bin/mcp-server-memory"}, Env: env, Cwd: fx.dir, Call: &mcpCall{Name: "read_graph", Arguments: map[string]any{}}}
	}},
	{name: "deaf", config: func(fx mcpFixture, _ *testing.T, env map[string]string) mcpConfig {
		return mcpConfig{Command: fx.node, Args: []string{"deaf-server.mjs"}, Env: env, Cwd: fx.dir, Call: echoTether}
	}},
	{name: "deaf-npm", npm: true, config: func(fx mcpFixture, _ *testing.T, env map[string]string) mcpConfig {
		return mcpConfig{Command: fx.npm, Args: []string{"exec", "--offline", "--no", "--", "node", "deaf-server.mjs"}, Env: env, Cwd: fx.dir, Call: echoTether}
	}},
}

// mcpEnding is an end of a session: its name, and the scenario
// client.mjs is given for it (kill is a client that hangs, then
// SIGKILLed).
type mcpEnding struct{ name, client string }

var mcpScenarios = []mcpEnding{
	{"close", "close"}, {"exit", "exit"}, {"kill", "hang"}, {"drop", "drop"},
}

// mcpOutcome is one case's line of the table.
type mcpOutcome struct {
	scenario, server, config string
	hello                    mcpHello
	tree                     []string // each process of the server's tree: PID and name
	left                     []string // those still running at the end of the watch
	ms                       int64    // from the client's end to the last gone; -1 when some stayed
	window                   time.Duration
	order                    int // its place in the table
}

func (o mcpOutcome) String() string {
	gone := fmt.Sprintf("%5d ms", o.ms)
	if o.ms < 0 {
		gone = fmt.Sprintf("stays > %v", o.window)
	}
	return fmt.Sprintf("%-5s | %-14s | %-8s | left %d of %d | %-12s | tree %s%s", o.scenario, o.server, o.config,
		len(o.left), len(o.tree), gone, strings.Join(o.tree, " "), leftNote(o.left))
}

func leftNote(left []string) string {
	if len(left) == 0 {
		return ""
	}
	return " | still running: " + strings.Join(left, " ")
}

// mcpTable is the outcomes of TestMCP's cases, which run one server per
// parallel subtest, kept to be logged in the table's order once all are
// done.
type mcpTable struct {
	mu   sync.Mutex
	rows []mcpOutcome
}

func (tb *mcpTable) add(o mcpOutcome) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.rows = append(tb.rows, o)
}

func (tb *mcpTable) log(t *testing.T) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	slices.SortFunc(tb.rows, func(a, b mcpOutcome) int { return cmp.Compare(a.order, b.order) })
	t.Log("MCP table (scenario | server | config | processes left | from the client's end to the last gone | tree at start):")
	for _, o := range tb.rows {
		t.Logf("MCP | %s", o)
	}
}

// TestMCP runs the table: every end of a session (close, exit, kill,
// drop) with every server (server-everything, directly, through npm
// exec, and with its simulated logging on; server-memory; the deaf
// server, directly and through npm exec), plain and tethered. A
// tethered server answers tools/list and its tool call exactly as the
// plain one does, and its whole tree (tether, its watchdog, npm exec,
// sh, node, the server's own children) is gone within mcpDeadline of the
// client's end. The servers run in parallel: most of a case is waiting
// for a tree to go (up to mcpBaselineWindow for a plain one), and the
// cases of different servers share nothing but the machine. The table is
// logged at the end, once every server's subtest is done (go test -v
// -run TestMCP ./e2e/).
func TestMCP(t *testing.T) {
	mcpNotRaced(t)
	fx := mcpInstalled(t)
	var table mcpTable
	// A cleanup runs after the parallel subtests have finished.
	t.Cleanup(func() { table.log(t) })
	for i, srv := range mcpServers {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			if srv.npm && fx.npm == "" {
				mcpSkip(t, "no npm on PATH: the servers started through npm exec need it")
			}
			for j, sc := range mcpScenarios {
				t.Run(sc.name, func(t *testing.T) {
					mcpPair(t, fx, srv, sc, (i*len(mcpScenarios)+j)*2, &table)
				})
			}
		})
	}
}

// mcpPair runs one end of a session with one server, plain and then
// tethered: the tethered case is held to the plain one's answers, so
// the two run in turn. Their outcomes go to the table at order and
// order+1.
func mcpPair(t *testing.T, fx mcpFixture, srv mcpServer, sc mcpEnding, order int, table *mcpTable) {
	var plain *mcpOutcome
	for k, config := range []string{"plain", "tethered"} {
		tethered := config == "tethered"
		t.Run(config, func(t *testing.T) {
			if tethered {
				mcpRecordRan(t)
			}
			o := mcpCase(t, fx, srv, sc.name, sc.client, tethered)
			o.scenario, o.server, o.config, o.order = sc.name, srv.name, config, order+k
			t.Logf("MCP | %s", o)
			table.add(o)
			if !tethered {
				plain = &o
				return
			}
			mcpCompare(t, srv.name, sc.name, plain, o)
		})
	}
}

// mcpCompare holds a tethered case to the rules: its whole tree gone
// within mcpDeadline, and the same answers as the plain case's.
func mcpCompare(t *testing.T, server, scenario string, plain *mcpOutcome, o mcpOutcome) {
	t.Helper()
	if len(o.left) > 0 {
		t.Errorf("%s of a tethered %s: %d of its %d processes still running %v after the client's end: %v; want all gone",
			scenario, server, len(o.left), len(o.tree), mcpDeadline, o.left)
	}
	if plain == nil {
		t.Fatal("no plain run of the same server to compare with")
	}
	for _, c := range []struct {
		what          string
		plain, tether json.RawMessage
	}{
		{"serverInfo", plain.hello.Server, o.hello.Server},
		{"tools/list", plain.hello.Tools, o.hello.Tools},
		{"the tool's result", plain.hello.Result, o.hello.Result},
	} {
		if p, q := canonicalJSON(t, c.plain), canonicalJSON(t, c.tether); p != q {
			t.Errorf("%s through tether differs:\nplain:    %s\ntethered: %s", c.what, p, q)
		}
	}
}

// canonicalJSON is msg with its objects' keys sorted, so that two answers
// compare by content.
func canonicalJSON(t *testing.T, msg json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(msg, &v); err != nil {
		t.Fatalf("%s: %v", msg, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mcpCase starts client.mjs with srv's configuration, tethered or not,
// takes the server's tree as /proc shows it once the client has its
// answers, ends the session by scenario and watches the tree go.
func mcpCase(t *testing.T, fx mcpFixture, srv mcpServer, scenario, clientScenario string, tethered bool) mcpOutcome {
	t.Helper()
	idEnv := proctest.Env(t)
	c := startMCPClient(t, fx, mcpConfigJSON(t, fx, srv, idEnv, tethered), clientScenario, idEnv)

	// Connected: tools listed, the tool called.
	var o mcpOutcome
	line := c.next("answer from the server", 30*time.Second)
	if err := json.Unmarshal([]byte(line), &o.hello); err != nil || o.hello.PID <= 0 {
		t.Fatalf("client.mjs said %q, want its JSON report with the transport's pid (%v)", line, err)
	}
	members := mcpTree(t, o.hello.PID)
	for _, m := range members {
		o.tree = append(o.tree, fmt.Sprintf("%d:%s", m.PID, mcpName(m.PID)))
	}
	// The tree is the test's own (its client's descendants): whatever of
	// it is left at the end is ended here, each process through a handle
	// taken before its start time is checked again.
	t.Cleanup(func() { mcpEnd(members) })

	// The client's end, then the watch: until the whole tree is gone or
	// the deadline (tethered) or the window (plain) has passed.
	o.window = mcpBaselineWindow
	if tethered {
		o.window = mcpDeadline
	}
	start := time.Now()
	c.end(scenario)
	o.ms, o.left = watchGone(members, start, o.window)
	c.finish(scenario, clientScenario)
	return o
}

// mcpConfigJSON is srv's configuration for client.mjs, with the
// environment that marks its processes as the test's (idEnv), tethered
// or not.
func mcpConfigJSON(t *testing.T, fx mcpFixture, srv mcpServer, idEnv []string, tethered bool) []byte {
	t.Helper()
	env := map[string]string{}
	for _, kv := range idEnv {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	config := srv.config(fx, t, env)
	if tethered {
		config.Args = append([]string{"run", "--hangup", "--", config.Command}, config.Args...)
		config.Command = tetherBin
	}
	b, err := json.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
