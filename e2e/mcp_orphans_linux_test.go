package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

// The orphans users already have: three sessions of a plain config (the
// deaf server through npm exec: npm exec, sh, node and its child) whose
// clients were killed with SIGKILL, beside a live session of the same
// config. tether ps --abandoned lists the three trees, whole, and no
// other; tether reclaim --abandoned ends them; the live session's server
// answers a tool call afterwards as before. It runs in a PID namespace
// of its own, whose init is the helper below, so that nothing but the
// test's own processes can be selected or signalled.

// orphansReport is what the namespace's init saw.
type orphansReport struct {
	Orphans    [][]int         `json:"orphans"` // each tree's PIDs, npm exec first
	Live       []int           `json:"live"`
	LiveBefore json.RawMessage `json:"live_before"`
	LiveAfter  json.RawMessage `json:"live_after"`
	PS         json.RawMessage `json:"ps"`
	PSText     string          `json:"ps_text"` // as a user reads it, logged
	DryRunText string          `json:"dry_run_text"`
	Reclaim    json.RawMessage `json:"reclaim"`
	Status     int             `json:"status"`
	Alive      map[string]bool `json:"alive"`
	Errors     []string        `json:"errors"`
}

var modeMCPOrphansInit = proctest.Register("mcp-orphans-init", func() {
	rep := orphansReport{Alive: map[string]bool{}}
	fail := func(err error) { rep.Errors = append(rep.Errors, err.Error()) }
	var sessions []*mcpSession
	for i := 0; i < 4; i++ {
		scenario := "hang"
		if i == 3 {
			scenario = "call"
		}
		s, err := startSession(scenario)
		if err != nil {
			fail(err)
			break
		}
		sessions = append(sessions, s)
	}
	if len(rep.Errors) == 0 {
		for _, s := range sessions[:3] {
			_ = s.cmd.Process.Kill()
			_ = s.cmd.Wait()
			rep.Orphans = append(rep.Orphans, s.tree)
		}
		live := sessions[3]
		rep.Live, rep.LiveBefore = live.tree, live.hello.Result
		tether := os.Getenv("PROCTEST_TETHER")
		rep.PS, _, _ = runOutput(exec.Command(tether, "ps", "--abandoned", "--json"))
		text, _, _ := runOutput(exec.Command(tether, "ps", "--abandoned"))
		rep.PSText = string(text)
		text, _, _ = runOutput(exec.Command(tether, "reclaim", "--abandoned", "--dry-run"))
		rep.DryRunText = string(text)
		rep.Reclaim, rep.Status, _ = runOutput(exec.Command(tether, "reclaim", "--abandoned", "--grace", "2s", "--json"))
		after, err := live.call()
		if err != nil {
			fail(err)
		}
		rep.LiveAfter = after
		for _, pid := range append(rep.Live, flatten(rep.Orphans)...) {
			p, err := proc.Host().Process(pid)
			rep.Alive[strconv.Itoa(pid)] = err == nil && !p.Zombie
		}
	}
	_ = json.NewEncoder(os.Stdout).Encode(rep)
})

func TestMCPOrphans(t *testing.T) {
	proctest.MaySkip(modeMCPOrphansInit) // without node, npm or a PID namespace, or under -race
	mcpNotRaced(t)
	mcpRecordRan(t)
	fx := mcpInstalled(t)
	if fx.npm == "" {
		mcpSkip(t, "no npm on PATH: the orphaned trees are npm exec's")
	}
	unshare := needUnshare(t)
	cmd := exec.Command(unshare, "--pid", "--fork", "--kill-child", "--mount-proc", os.Args[0])
	cmd.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
	cmd.Env = append(cmd.Env, proctest.Mode(modeMCPOrphansInit), "PROCTEST_TETHER="+tetherBin,
		"PROCTEST_MCP_DIR="+fx.dir, "PROCTEST_NODE="+fx.node, "PROCTEST_NPM="+fx.npm)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the namespace's init: %v\n%s", err, out)
	}
	var rep orphansReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("the init's report %q: %v", out, err)
	}
	for _, e := range rep.Errors {
		t.Fatal(e)
	}
	t.Logf("tether ps --abandoned:\n%s\ntether reclaim --abandoned --dry-run:\n%s", rep.PSText, rep.DryRunText)
	checkOrphans(t, rep)
}

// checkOrphans holds the report to the rules: the three trees listed
// whole and ended, the live one untouched and answering.
func checkOrphans(t *testing.T, rep orphansReport) {
	t.Helper()
	var listed []struct {
		PID     int `json:"pid"`
		Members []struct {
			PID int `json:"pid"`
		} `json:"members"`
	}
	if err := json.Unmarshal(rep.PS, &listed); err != nil {
		t.Fatalf("ps --abandoned --json %q: %v", rep.PS, err)
	}
	want := map[int]int{}
	for _, tree := range rep.Orphans {
		want[tree[0]] = len(tree)
	}
	got := map[int]int{}
	for _, l := range listed {
		got[l.PID] = len(l.Members)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ps --abandoned: trees (root: members) %v; want the orphaned ones, whole: %v", got, want)
	}
	if rep.Status != 0 || strings.Count(string(rep.Reclaim), `"outcome":"ended"`) != 3 {
		t.Errorf("reclaim --abandoned: exit %d, %s; want exit 0 and 3 trees ended", rep.Status, rep.Reclaim)
	}
	for _, pid := range flatten(rep.Orphans) {
		if rep.Alive[strconv.Itoa(pid)] {
			t.Errorf("orphaned server process %d alive after reclaim --abandoned; want it gone", pid)
		}
	}
	for _, pid := range rep.Live {
		if !rep.Alive[strconv.Itoa(pid)] {
			t.Errorf("the live session's server process %d gone after reclaim --abandoned; want it untouched", pid)
		}
	}
	if b, a := canonicalJSON(t, rep.LiveBefore), canonicalJSON(t, rep.LiveAfter); b != a || b == "null" {
		t.Errorf("the live session's tool call: %s before, %s after; want the same answer", b, a)
	}
}

// mcpSession is a client (client.mjs) and its server's tree, in the
// namespace's init.
type mcpSession struct {
	cmd   *exec.Cmd
	in    *os.File
	out   *bufio.Reader
	hello mcpHello
	tree  []int
}

// startSession starts client.mjs with the deaf server through npm exec,
// a plain config, and waits for its first answers.
func startSession(scenario string) (*mcpSession, error) {
	dir := os.Getenv("PROCTEST_MCP_DIR")
	config, _ := json.Marshal(mcpConfig{Command: os.Getenv("PROCTEST_NPM"), Args: []string{"exec", "--offline", "--no", "--", "node", "deaf-server.mjs"}, Cwd: dir, Call: echoTether})
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	cmd := exec.Command(os.Getenv("PROCTEST_NODE"), "client.mjs", string(config), scenario)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, inR, outW, os.Stderr
	err := cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		return nil, err
	}
	s := &mcpSession{cmd: cmd, in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	line, err := s.out.ReadString('\n')
	if err != nil || json.Unmarshal([]byte(line), &s.hello) != nil || s.hello.PID <= 0 {
		return nil, fmt.Errorf("client.mjs said %q (%v), want its answers", line, err)
	}
	st, err := proc.Host().Stat(s.hello.PID)
	if err != nil {
		return nil, err
	}
	for _, m := range append([]procid.ID{{PID: s.hello.PID, StartTime: st.StartTime}}, ptree.Subtree(proc.Host(), s.hello.PID, 0)...) {
		s.tree = append(s.tree, m.PID)
	}
	return s, nil
}

// call has a live session call its tool again, and gives the result.
func (s *mcpSession) call() (json.RawMessage, error) {
	if _, err := s.in.Write([]byte("go\n")); err != nil {
		return nil, err
	}
	line, err := s.out.ReadString('\n')
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	if err != nil || json.Unmarshal([]byte(line), &r) != nil {
		return nil, fmt.Errorf("the live client said %q (%v), want a result", line, err)
	}
	return r.Result, nil
}

// runOutput runs cmd and gives its standard output and exit status; err
// is a failure to run it at all.
func runOutput(cmd *exec.Cmd) (out json.RawMessage, code int, err error) {
	cmd.Stderr = os.Stderr
	out, err = cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return out, ee.ExitCode(), nil
	}
	return out, 0, err
}

func flatten(trees [][]int) []int {
	var out []int
	for _, t := range trees {
		out = append(out, t...)
	}
	return out
}
