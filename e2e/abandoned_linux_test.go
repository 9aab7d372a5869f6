package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
)

// The orphan finder is tried where every process it could end is the
// test's own: in a PID namespace of its own, whose init is the helper
// below. It leaves stdio trees of each kind, reparented to itself (an
// intermediate starts each tree and exits), runs tether ps --abandoned
// and tether reclaim --abandoned there, and reports what each saw and
// what is left alive after, as one JSON object.

// nsTree is one tree the init left, by kind, with its root's and its
// child's PIDs as the namespace numbers them.
type nsTree struct {
	Kind  string `json:"kind"`
	Root  int    `json:"root"`
	Child int    `json:"child"`
}

type nsReport struct {
	Trees []nsTree        `json:"trees"`
	PS    json.RawMessage `json:"ps"`
	// OtherUser and OtherAnyUser are ps --abandoned as uid 65534,
	// without and with --any-user.
	OtherUser    json.RawMessage `json:"other_user"`
	OtherAnyUser json.RawMessage `json:"other_any_user"`
	DryRun       json.RawMessage `json:"dry_run"`
	Reclaim      json.RawMessage `json:"reclaim"`
	Status       int             `json:"status"`
	Alive        map[string]bool `json:"alive"` // by PID, after the reclaim
	Errors       []string        `json:"errors"`
}

// modeDeafListener listens on a loopback port, says it, and never reads
// its input: a server that outlives its client.
var modeDeafListener = proctest.Register("deaf-listener", func() {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer l.Close()
	fmt.Println(strings.TrimPrefix(l.Addr().String(), "127.0.0.1:"))
	forever()
})

var modeAbandonedInit = proctest.Starts(proctest.Register("abandoned-init", func() {
	rep := nsReport{Alive: map[string]bool{}}
	leave := &leaver{tether: os.Getenv("PROCTEST_TETHER"), rep: &rep}
	leave.all()
	// The intermediates are reaped only now: the zombie client's tree
	// was looked at while its client was one.
	run := func(args ...string) (json.RawMessage, int) {
		out, code, err := runOutput(exec.Command(leave.tether, args...))
		if err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("%v: %v", args, err))
		}
		return out, code
	}
	rep.PS, _ = run("ps", "--abandoned", "--json")
	// Another user sees none of them, also when it asks for every
	// user's: root's pipes and processes are not its to read.
	nobody := []string{"--reuid", "65534", "--regid", "65534", "--clear-groups", leave.tether}
	leave.tether = "setpriv"
	rep.OtherUser, _ = run(append(nobody, "ps", "--abandoned", "--json")...)
	rep.OtherAnyUser, _ = run(append(nobody, "ps", "--abandoned", "--any-user", "--json")...)
	leave.tether = nobody[len(nobody)-1]
	rep.DryRun, _ = run("reclaim", "--abandoned", "--dry-run", "--json")
	rep.Reclaim, rep.Status = run("reclaim", "--abandoned", "--grace", "2s", "--json")
	leave.reapIntermediates()
	for _, t := range rep.Trees {
		for _, pid := range []int{t.Root, t.Child} {
			p, err := proc.Host().Process(pid)
			rep.Alive[strconv.Itoa(pid)] = err == nil && !p.Zombie
		}
	}
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	leave.closeLive()
}), modeDeafListener)

// TestAbandonedInNamespace: the trees left by dead or dropped clients
// are listed and ended whole; a tree whose client is a zombie counts as
// abandoned; a live session's tree (its client the init, or a process of
// another user holding the other ends), a daemon on /dev/null and a
// server on a file are never selected, and survive the reclaim.
func TestAbandonedInNamespace(t *testing.T) {
	proctest.MaySkip(modeAbandonedInit) // where no PID namespace can be made
	unshare := needUnshare(t)
	cmd := exec.Command(unshare, "--pid", "--fork", "--kill-child", "--mount-proc", os.Args[0])
	cmd.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
	cmd.Env = append(cmd.Env, proctest.Mode(modeAbandonedInit), "PROCTEST_TETHER="+tetherBin)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the namespace's init: %v\n%s", err, out)
	}
	var rep nsReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("the init's report %q: %v", out, err)
	}
	for _, e := range rep.Errors {
		t.Error(e)
	}
	checkAbandonedReport(t, rep)
}

// checkAbandonedReport holds the init's report to the rules.
func checkAbandonedReport(t *testing.T, rep nsReport) {
	t.Helper()
	var listed []struct {
		PID     int `json:"pid"`
		Members []struct {
			PID int `json:"pid"`
		} `json:"members"`
		Ports []struct {
			Port int `json:"port"`
		} `json:"ports"`
	}
	if err := json.Unmarshal(rep.PS, &listed); err != nil {
		t.Fatalf("ps --abandoned --json %q: %v", rep.PS, err)
	}
	byRoot := map[int]int{}
	ports := map[int]int{}
	for _, l := range listed {
		byRoot[l.PID] = len(l.Members)
		ports[l.PID] = len(l.Ports)
	}
	for _, tr := range rep.Trees {
		abandoned := strings.HasPrefix(tr.Kind, "abandoned")
		if n, ok := byRoot[tr.Root]; ok != abandoned || ok && n != 2 {
			t.Errorf("ps --abandoned: %s tree %d listed %v with %d members; want listed %v with 2", tr.Kind, tr.Root, ok, n, abandoned)
		}
		if tr.Kind == "abandoned-listener" && ports[tr.Root] != 1 {
			t.Errorf("ps --abandoned: the listening tree %d shows %d ports; want 1", tr.Root, ports[tr.Root])
		}
		for _, pid := range []int{tr.Root, tr.Child} {
			if alive := rep.Alive[strconv.Itoa(pid)]; alive == abandoned {
				t.Errorf("after reclaim --abandoned: %s tree's %d alive %v; want %v", tr.Kind, pid, alive, !abandoned)
			}
		}
	}
	if len(listed) != len(byRoot) || len(byRoot) != countPrefix(rep.Trees, "abandoned") {
		t.Errorf("ps --abandoned listed %d trees; want the %d abandoned ones only:\n%s", len(listed), countPrefix(rep.Trees, "abandoned"), rep.PS)
	}
	for _, other := range []json.RawMessage{rep.OtherUser, rep.OtherAnyUser} {
		if strings.TrimSpace(string(other)) != "[]" {
			t.Errorf("ps --abandoned as uid 65534: %s; want [] (root's trees are not its to see or end)", other)
		}
	}
	if !strings.Contains(string(rep.DryRun), `"would-end"`) || rep.Status != 0 || strings.Count(string(rep.Reclaim), `"outcome":"ended"`) != len(listed) {
		t.Errorf("reclaim --abandoned: exit %d, dry run %s, run %s; want exit 0, each tree would-end then ended", rep.Status, rep.DryRun, rep.Reclaim)
	}
}

func countPrefix(ts []nsTree, prefix string) int {
	n := 0
	for _, t := range ts {
		if strings.HasPrefix(t.Kind, prefix) {
			n++
		}
	}
	return n
}

// leaver leaves the trees, as their clients would.
type leaver struct {
	tether        string
	rep           *nsReport
	intermediates []*exec.Cmd
	live          []*os.File
}

// tree is the shape of a server's tree: a shell that starts a child and
// then becomes the server.
const treeScript = `sleep 600 & echo $! >&3; exec sleep 601`

func (l *leaver) all() {
	for i := 0; i < 3; i++ {
		l.pipes("abandoned", false, nil)
	}
	l.socket()
	l.zombieClient()
	l.pipes("live", true, nil)
	l.otherUser()
	l.onFile("daemon", os.DevNull)
	l.onFile("file", "/proc/self/cmdline") // any file: no other end
	l.listener()
	l.memberPeer()
	l.otherUserMember()
}

// memberPeer leaves a tree whose root's ends have hung up, but whose
// child writes to a pipe that the init still reads: a member with a live
// peer outside the tree keeps the tree out.
func (l *leaver) memberPeer() {
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	peerR, peerW, _ := os.Pipe()
	// fd 7 of the intermediate (4 to 6 closed) is the member's stdout.
	l.start("kept-member-peer", inR, outW, `sleep 600 >&7 7>&- & echo $! >&3; exec sleep 601 7>&-`, nil, nil, nil, peerW)
	for _, f := range []*os.File{inR, inW, outR, outW, peerW} {
		f.Close()
	}
	l.live = append(l.live, peerR)
}

// otherUserMember leaves an abandoned tree of root's with a member of
// uid 65534: without --any-user, not root's alone to end.
func (l *leaver) otherUserMember() {
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	l.start("kept-other-user-member", inR, outW, `setpriv --reuid 65534 --regid 65534 --clear-groups sleep 600 & echo $! >&3; exec sleep 601`)
	for _, f := range []*os.File{inR, inW, outR, outW} {
		f.Close()
	}
}

// start starts the tree through an intermediate sh that exits at once,
// with stdin and stdout given and extra files for the intermediate, and
// records it.
func (l *leaver) start(kind string, stdin, stdout *os.File, script string, extra ...*os.File) {
	pr, pw, _ := os.Pipe()
	cmd := exec.Command("/bin/sh", "-c", "exec 6<&0; /bin/sh -c \"$1\" sh \"$2\" <&6 6<&- 4>&- 5>&- & exit 0", "sh", script, kind)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, os.Stderr
	cmd.ExtraFiles = append([]*os.File{pw}, extra...)
	if err := cmd.Start(); err != nil {
		l.rep.Errors = append(l.rep.Errors, fmt.Sprintf("%s: %v", kind, err))
		return
	}
	l.intermediates = append(l.intermediates, cmd)
	pw.Close()
	line, _ := bufio.NewReader(pr).ReadString('\n')
	pr.Close()
	child, _ := strconv.Atoi(strings.TrimSpace(line))
	root := 0
	for try := 0; try < 500 && root == 0; try++ {
		if p, err := proc.Host().Process(child); err == nil && p.PPID > 1 {
			root = p.PPID
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	l.rep.Trees = append(l.rep.Trees, nsTree{Kind: kind, Root: root, Child: child})
}

// pipes leaves a tree on two pipes; keep keeps the client's ends (a
// live session), holder, when given, is a process given them instead.
func (l *leaver) pipes(kind string, keep bool, holder func(w, r *os.File)) {
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	l.start(kind, inR, outW, treeScript)
	inR.Close()
	outW.Close()
	switch {
	case holder != nil:
		holder(inW, outR)
		inW.Close()
		outR.Close()
	case keep:
		l.live = append(l.live, inW, outR)
	default:
		inW.Close()
		outR.Close()
	}
}

func (l *leaver) socket() {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		l.rep.Errors = append(l.rep.Errors, "socketpair: "+err.Error())
		return
	}
	server, client := os.NewFile(uintptr(fds[0]), "server"), os.NewFile(uintptr(fds[1]), "client")
	l.start("abandoned-socket", server, server, treeScript)
	server.Close()
	client.Close()
}

// zombieClient leaves a tree whose client ends are held by its
// intermediate, which exits and is not reaped until the end.
func (l *leaver) zombieClient() {
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	l.start("abandoned-zombie-client", inR, outW, treeScript, inW, outR)
	for _, f := range []*os.File{inR, inW, outR, outW} {
		f.Close()
	}
}

// otherUser leaves a tree whose client ends a process of another user
// holds: a live session, though its peer is not this user's.
func (l *leaver) otherUser() {
	l.pipes("live-other-user", false, func(w, r *os.File) {
		cmd := exec.Command("setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "sleep", "600")
		cmd.ExtraFiles = []*os.File{w, r}
		if err := cmd.Start(); err != nil {
			l.rep.Errors = append(l.rep.Errors, "setpriv: "+err.Error())
		}
	})
}

func (l *leaver) onFile(kind, path string) {
	f, err := os.Open(path)
	if err != nil {
		l.rep.Errors = append(l.rep.Errors, err.Error())
		return
	}
	null, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	l.start(kind, f, null, treeScript)
	f.Close()
	null.Close()
}

// listener leaves an abandoned tree that listens on a port.
func (l *leaver) listener() {
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	script := `sleep 600 & echo $! >&3; exec env ` + proctest.Mode(modeDeafListener) + ` "$0"`
	pr, pw, _ := os.Pipe()
	// The intermediate passes the script its own path as $0.
	cmd := exec.Command("/bin/sh", "-c", "exec 6<&0; /bin/sh -c \"$1\" \"$2\" <&6 6<&- & exit 0", "sh", script, os.Args[0])
	cmd.Env = append(os.Environ(), proctest.IDVar+"="+os.Getenv(proctest.IDVar))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	cmd.ExtraFiles = []*os.File{pw}
	if err := cmd.Start(); err != nil {
		l.rep.Errors = append(l.rep.Errors, "listener: "+err.Error())
		return
	}
	l.intermediates = append(l.intermediates, cmd)
	pw.Close()
	inR.Close()
	outW.Close()
	line, _ := bufio.NewReader(pr).ReadString('\n')
	child, _ := strconv.Atoi(strings.TrimSpace(line))
	// The port line says the listener is up; then the client goes.
	_, _ = bufio.NewReader(outR).ReadString('\n')
	p, _ := proc.Host().Process(child)
	l.rep.Trees = append(l.rep.Trees, nsTree{Kind: "abandoned-listener", Root: p.PPID, Child: child})
	inW.Close()
	outR.Close()
	pr.Close()
}

func (l *leaver) reapIntermediates() {
	for _, c := range l.intermediates {
		_ = c.Wait()
	}
}

func (l *leaver) closeLive() {
	for _, f := range l.live {
		f.Close()
	}
}

// --abandoned selects by the other ends of stdin and stdout alone: the
// selections of tethered processes do not go with it.
func TestAbandonedUsage(t *testing.T) {
	for _, args := range [][]string{
		{"ps", "--abandoned", "--port", "8080"},
		{"reclaim", "--abandoned", "--name", "web"},
		{"reclaim", "--abandoned", "--all"},
		{"reclaim", "--abandoned", "--foreign"},
		{"reclaim", "--abandoned", "--grace", "-1s"},
	} {
		r := tether(t, nil, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "tether ") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("tether %s: exit %d, %q; want %d and one line", strings.Join(args, " "), r.code, r.stderr, exitUsage)
		}
	}
}
