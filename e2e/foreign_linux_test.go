package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proctest"
)

// modeConnect is proctest's client of a port.
const modeConnect = proctest.Connect

// startClient connects a client to port and returns it once connected.
func startClient(t *testing.T, port string) *proctest.Proc {
	t.Helper()
	p, line := proctest.StartLine(t, modeConnect, proctest.Spec{Env: []string{"PROCTEST_PORT=" + port}})
	if line != "connected" {
		t.Fatalf("client: %q", line)
	}
	return p
}

// The stuck port, freed as a user would: a holder tether did not start is
// named and left (exit 1: the port is still held), shown by a dry run with
// --foreign (exit 0: it would be freed), then ended with --foreign (exit
// 0, the port free), while a client connected to the port lives on.
func TestReclaimForeignPort(t *testing.T) {
	server, port := startListener(t, nil)
	client := startClient(t, port)

	r := tether(t, nil, "reclaim", "--port", port)
	if r.code != 1 || !strings.Contains(r.stdout, strconv.Itoa(server.PID())) || !strings.Contains(r.stdout, "--foreign") ||
		!strings.Contains(r.stdout, "port "+port+": held by PID "+strconv.Itoa(server.PID())) {
		t.Errorf("reclaim --port without --foreign: %+v; want exit 1, the holder named and --foreign suggested", r)
	}
	wantRunning(t, server, "the foreign holder, without --foreign")

	r = tether(t, nil, "reclaim", "--port", port, "--foreign", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, strconv.Itoa(server.PID())+" (foreign): would be signalled") ||
		!strings.Contains(r.stdout, fmt.Sprintf("(uid %d, ", os.Getuid())) || !strings.Contains(r.stdout, " old)") {
		t.Errorf("--dry-run --foreign: %+v; want exit 0 and the holder with its user and age", r)
	}
	wantRunning(t, server, "the foreign holder, after a dry run")

	r = tether(t, nil, "reclaim", "--port", port, "--foreign", "--json")
	var rep struct {
		Free  *bool `json:"free"`
		Ports []struct {
			Free bool `json:"free"`
		} `json:"ports"`
		Results []struct {
			PID     int    `json:"pid"`
			Outcome string `json:"outcome"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("--json: %v: %q", err, r.stdout)
	}
	if r.code != 0 || rep.Free == nil || !*rep.Free || len(rep.Ports) != 1 || !rep.Ports[0].Free ||
		len(rep.Results) != 1 || rep.Results[0].PID != server.PID() || rep.Results[0].Outcome != "gone" {
		t.Errorf("--foreign --json: %+v (%s); want exit 0, free, the holder gone", r, r.stdout)
	}
	select {
	case <-server.Done():
	case <-time.After(10 * time.Second):
		t.Error("the foreign holder is alive 10s after it was reported gone")
	}
	wantRunning(t, client, "the client connected to the port")
}

// A port with no holder is free: exit 0, whatever else is asked.
func TestReclaimFreePort(t *testing.T) {
	port := freePort(t, "tcp")
	for _, args := range [][]string{
		{"reclaim", "--port", port},
		{"reclaim", "--port", port, "--foreign"},
		{"reclaim", "--port", port, "--foreign", "--dry-run"},
	} {
		if r := tether(t, nil, args...); r.code != 0 || !strings.Contains(r.stdout, "port "+port+": free") {
			t.Errorf("%v: %+v; want exit 0 and the port free", args, r)
		}
	}
	wantUsage(t, tether(t, nil, "reclaim", "--foreign"), "--foreign")
}

// tether run --port over a holder tether did not start refuses it, names
// it and the flag that would end it; with --foreign the holder is ended
// and the command starts.
func TestRunPortForeign(t *testing.T) {
	server, port := startListener(t, nil)
	r := tether(t, nil, "run", "--port", port, "--", "/bin/true")
	wantUsage(t, r, strconv.Itoa(server.PID()))
	if !strings.Contains(r.stderr, "--foreign would end it") || !strings.Contains(r.stderr, "nothing was signalled") {
		t.Errorf("run --port refusal: %q; want the --foreign hint and nothing signalled", r.stderr)
	}
	wantRunning(t, server, "the foreign holder, without --foreign")
	if r := tether(t, nil, "run", "--port", port, "--foreign", "--", "/bin/sh", "-c", "exit 3"); r.code != 3 {
		t.Errorf("run --port --foreign: %+v; want the command run (exit 3)", r)
	}
	select {
	case <-server.Done():
	case <-time.After(10 * time.Second):
		t.Error("the foreign holder is alive 10s after run --foreign started its command")
	}
	wantUsage(t, tether(t, nil, "run", "--replace", "--", "/bin/true"), "--port")
}

// A server left running in another terminal, its tether alive: run
// --port refuses it and names --replace; with --replace the earlier run
// is ended through its tether, which exits as its command did (TERM), and
// the new command starts on the freed port.
func TestRunPortReplace(t *testing.T) {
	port := freePort(t, "tcp")
	earlier := startTether(t, helperEnv(modeServe, "PROCTEST_LISTEN=tcp4:127.0.0.1:"+port), "run", "--name", "srv", "--", os.Args[0])
	if line := earlier.line(t); line != "listening" {
		t.Fatalf("earlier run: %q", line)
	}
	r := tether(t, nil, "run", "--port", port, "--", "/bin/true")
	wantUsage(t, r, port)
	if !strings.Contains(r.stderr, "--replace would end it") {
		t.Errorf("run --port over a live run: %q; want the --replace hint", r.stderr)
	}
	select {
	case <-earlier.done:
		t.Fatal("the earlier run ended without --replace")
	default:
	}
	if r := tether(t, nil, "run", "--port", port, "--replace", "--grace", "5s", "--", "/bin/sh", "-c", "exit 4"); r.code != 4 {
		t.Errorf("run --port --replace: %+v; want the new command run (exit 4)", r)
	}
	if code := earlier.wait(t); code != 128+int(syscall.SIGTERM) {
		t.Errorf("the earlier tether exited %d, want %d (its command ended by TERM)", code, 128+int(syscall.SIGTERM))
	}
}

// tether ps --port lists the caller's holders only, as ps does without
// --port; --any-user shows another user's.
func TestPSPortWhoseProcesses(t *testing.T) {
	if os.Getuid() != 0 {
		proctest.MaySkip(modeListen)
		t.Skip("needs root to start a holder as uid 65534")
	}
	bin := proctest.Copy(t, "e2e.test")
	p, port := proctest.StartLine(t, modeListen, proctest.Spec{Path: bin,
		SysProcAttr: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}})
	pid := strconv.Itoa(p.PID())
	// Not a row of the table, but named after it: a port held by
	// someone is never shown as held by no one.
	if r := tether(t, nil, "ps", "--port", port); psRow(r.stdout, p.PID()) != "" ||
		!strings.Contains(r.stdout, "port "+port+": held by PID "+pid+" of uid 65534") || !strings.Contains(r.stdout, "--any-user to see it") {
		t.Errorf("ps --port %s as root: %q; want holder %s named as another user's, not listed, without --any-user", port, r.stdout, pid)
	}
	if r := tether(t, nil, "ps", "--port", port, "--any-user"); !strings.Contains(r.stdout, pid) {
		t.Errorf("ps --port %s --any-user: %q; want holder %s listed", port, r.stdout, pid)
	}
	r := tether(t, nil, "reclaim", "--port", port, "--foreign")
	if r.code != 1 || !strings.Contains(r.stdout, "another user's (uid 65534)") {
		t.Errorf("reclaim --foreign as root without --any-user: %+v; want exit 1, the holder left as another user's", r)
	}
	wantRunning(t, p, "another user's holder")
}

// modeListenDeaf listens on a loopback TCP port, ignores TERM, prints the
// port and blocks until stdin closes: a holder that lasts its grace.
var modeListenDeaf = proctest.Register("listen-deaf", func() {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	signal.Ignore(syscall.SIGTERM)
	fmt.Println(l.Addr().(*net.TCPAddr).Port)
	_, _ = io.Copy(io.Discard, os.Stdin)
})

// A reclaim that waits through its grace says so on a terminal, in one
// line written over in place and erased at the end; off a terminal it
// says nothing of it.
func TestReclaimGraceStatusLine(t *testing.T) {
	t.Parallel() // it waits out a grace or a window, and signals only its own
	for _, onTTY := range []bool{true, false} {
		p, port := proctest.StartLine(t, modeListenDeaf, proctest.Spec{})
		cmd := exec.Command(tetherBin, "reclaim", "--port", port, "--foreign", "--grace", "1500ms")
		cmd.Env = proctest.CleanEnv()
		var stderr strings.Builder
		var master, slave *os.File
		var tty chan []byte
		if onTTY {
			master, slave = proctest.OpenPTY(t)
			cmd.Stderr = slave
			// Read as it comes: a terminal's buffer is small, and a
			// writer on a full one waits.
			tty = make(chan []byte, 1)
			go func() {
				var all []byte
				buf := make([]byte, 4096)
				for {
					n, err := master.Read(buf)
					all = append(all, buf[:n]...)
					if err != nil {
						tty <- all
						return
					}
				}
			}()
		} else {
			cmd.Stderr = &stderr
		}
		out, err := cmd.Output()
		if slave != nil {
			slave.Close() // the master reads to its end (EIO) once tether has exited
		}
		if err != nil {
			t.Fatalf("reclaim --foreign (terminal %v): %v: %s", onTTY, err, out)
		}
		if onTTY {
			var got string
			select {
			case b := <-tty:
				got = string(b)
			case <-time.After(10 * time.Second):
				t.Fatal("the terminal's output did not end 10s after tether exited")
			}
			if !strings.Contains(got, "waiting for 1 process(es) to exit; KILL in") || !strings.HasSuffix(got, "\r\x1b[K") || len(got) > 4096 {
				t.Errorf("stderr on a terminal: %q; want the status line, a few times at most, erased at the end", got)
			}
		} else if stderr.Len() != 0 {
			t.Errorf("stderr off a terminal: %q; want nothing", stderr.String())
		}
		select {
		case <-p.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the holder that ignores TERM is alive 10s after the reclaim")
		}
	}
}

// modeWorkers is proctest's server whose workers share its socket (PROCTEST_WORKERS of them).
const modeWorkers = proctest.SharedListen

// The holders users meet, freed through the built binary: a server that
// wrote its title over its environment (Perl's $0), which tether cannot
// verify, and one whose forked workers share its listening socket.
func TestReclaimForeignRenamedAndWorkers(t *testing.T) {
	t.Run("workers", func(t *testing.T) {
		p, line := proctest.StartLine(t, modeWorkers, proctest.Spec{Env: []string{"PROCTEST_WORKERS=3"}})
		port := strings.Fields(line)[0] // then the workers' PIDs
		r := tether(t, nil, "reclaim", "--port", port, "--foreign")
		if r.code != 0 || strings.Count(r.stdout, ": TERM: gone") != 4 || !strings.Contains(r.stdout, "port "+port+": free") {
			t.Errorf("reclaim --foreign over a server and 3 workers: %+v; want 4 gone and the port free", r)
		}
		select {
		case <-p.Done():
		case <-time.After(10 * time.Second):
			t.Error("the server is alive 10s after the reclaim")
		}
	})
	t.Run("renamed", func(t *testing.T) {
		server, port, done := proctest.RenamedListener(t)
		pid := strconv.Itoa(server)
		r := tether(t, nil, "reclaim", "--port", port)
		if r.code != 1 || !strings.Contains(r.stdout, pid+" (unverifiable)") || !strings.Contains(r.stdout, "--foreign") {
			t.Errorf("reclaim --port over a renamed server: %+v; want exit 1, it named unverifiable, --foreign suggested", r)
		}
		r = tether(t, nil, "reclaim", "--port", port, "--foreign")
		if r.code != 0 || !strings.Contains(r.stdout, pid+" (unverifiable): TERM: gone") {
			t.Errorf("reclaim --port --foreign over a renamed server: %+v; want it gone, exit 0", r)
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the renamed server is alive 10s after the reclaim")
		}
	})
}

// A real server that renames itself and forks workers as another user:
// nginx as root, its workers as nobody. Without --foreign it is named and
// left (reclaim exit 1, run refused); run --port --foreign ends the master
// (the workers, another user's, are left to it), finds the port free,
// and starts the command, as reclaim --port --foreign would decide.
func TestForeignNginx(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: nginx's master starts its workers as nobody")
	}
	dir := t.TempDir()
	port := freePort(t, "tcp")
	// The servers' tests' nginx, in the foreground.
	args := nginxArgs(t, dir, port, true)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = proctest.CleanEnv()
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			_ = cmd.Process.Kill() // the master; its workers follow it
			<-done
		}
	})
	if r := tether(t, nil, "wait", "--port", port, "--timeout", "10s"); r.code != 0 {
		t.Fatalf("nginx does not listen on %s: %+v (nginx: %s)", port, r, errOut.String())
	}
	master := strconv.Itoa(cmd.Process.Pid)
	r := tether(t, nil, "reclaim", "--port", port)
	if r.code != 1 || !strings.Contains(r.stdout, master+" (unverifiable)") || strings.Count(r.stdout, "(uid 65534, ") != 2 {
		t.Errorf("reclaim --port over nginx: %+v; want exit 1, the master and 2 workers named", r)
	}
	r = tether(t, nil, "run", "--port", port, "--", "/bin/true")
	wantUsage(t, r, master)
	if !strings.Contains(r.stderr, "--foreign would end it") {
		t.Errorf("run --port over nginx: %q; want the --foreign hint", r.stderr)
	}
	if r := tether(t, nil, "run", "--port", port, "--foreign", "--", "/bin/sh", "-c", "exit 5"); r.code != 5 {
		t.Errorf("run --port --foreign over nginx: %+v; want the command run (exit 5)", r)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("nginx's master is alive 10s after run --foreign")
	}
	if r := tether(t, nil, "wait", "--port", port, "--free", "--timeout", "10s"); r.code != 0 {
		t.Errorf("the port after nginx's end: %+v; want it free", r)
	}
}

// run --port --replace from inside the very run it would replace: the
// holder's tether is an ancestor of the new one, which never signals its
// own ancestors; the holder is ended itself, and the outer run goes on.
func TestRunReplaceFromInsideTheRun(t *testing.T) {
	port := freePort(t, "tcp")
	script := fmt.Sprintf(`"$0" & pid=$!
"$TETHER_UNDER_TEST" wait --port %[1]s --timeout 10s >/dev/null || exit 9
"$TETHER_UNDER_TEST" run --port %[1]s --replace -- /bin/true; echo "inner=$?"
wait $pid; echo "holder=$?"`, port)
	r := startTether(t, helperEnv(modeServe, "PROCTEST_LISTEN=tcp4:127.0.0.1:"+port, "TETHER_UNDER_TEST="+tetherBin),
		"run", "--name", "outer", "--", "/bin/sh", "-c", script, os.Args[0])
	if line := r.line(t); line != "listening" {
		t.Fatalf("holder: %q", line)
	}
	if line := r.line(t); line != "inner=0" {
		t.Errorf("the inner run: %q, want inner=0 (started once the port was free)", line)
	}
	if line := r.line(t); line != "holder="+strconv.Itoa(128+int(syscall.SIGTERM)) {
		t.Errorf("the holder: %q, want it ended by TERM", line)
	}
	if code := r.wait(t); code != 0 {
		t.Errorf("the outer run exited %d, want 0: it was signalled by the run inside it", code)
	}
}
