package e2e

import (
	"bufio"
	"fmt"
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

// A server that ignores end-of-input (it never reads), with a child of
// its own, as an MCP server started through npx is a tree: it says its
// child's PID, then sleeps.
const deafServer = "sleep 600 & echo $!; exec sleep 600"

// clientEnds is a client's side of a server's standard input and output:
// two pipes, or one socket for both (as Node's child_process makes them).
type clientEnds struct {
	stdin, stdout *os.File // the server's
	write, read   *os.File // the client's
}

func pipesFor(t *testing.T) clientEnds {
	t.Helper()
	inR, inW := pipe(t)
	outR, outW := pipe(t)
	return clientEnds{stdin: inR, stdout: outW, write: inW, read: outR}
}

func socketFor(t *testing.T) clientEnds {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	server, client := os.NewFile(uintptr(fds[0]), "server"), os.NewFile(uintptr(fds[1]), "client")
	t.Cleanup(func() { server.Close(); client.Close() })
	return clientEnds{stdin: server, stdout: server, write: client, read: client}
}

// startServer starts tether with args in front of deafServer, its
// standard input and output the server's ends of ends, and returns
// tether's process, its reaping, and the server's child's PID.
func startServer(t *testing.T, ends clientEnds, args ...string) (*exec.Cmd, <-chan struct{}, int) {
	t.Helper()
	cmd := exec.Command(tetherBin, append(args, "--", "/bin/sh", "-c", deafServer)...)
	cmd.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = ends.stdin, ends.stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The client keeps only its own ends, as a client does.
	if ends.stdin != ends.write {
		ends.stdin.Close()
	}
	if ends.stdout != ends.stdin {
		ends.stdout.Close()
	}
	done := waitedWithTERM(t, cmd)
	line, err := bufio.NewReader(ends.read).ReadString('\n')
	if err != nil {
		t.Fatalf("the server's first line: %v", err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the server's first line %q: want its child's PID", line)
	}
	return cmd, done, child
}

// A client that closes the server's input and output and sends no
// signal (a reconnect, a dropped session) ends a server run with
// --hangup, its whole tree, whether the two are pipes or one socket.
// A client that only closes the input is ending it the usual way and
// still reads: that alone ends nothing.
func TestRunHangup(t *testing.T) {
	for _, c := range []struct {
		name string
		ends func(*testing.T) clientEnds
	}{{"pipes", pipesFor}, {"socket", socketFor}} {
		t.Run(c.name, func(t *testing.T) {
			ends := c.ends(t)
			cmd, done, child := startServer(t, ends, "run", "--hangup", "--grace", "2s")
			if ends.write != ends.read {
				ends.write.Close()
				time.Sleep(300 * time.Millisecond)
				if deadOrZombie(cmd.Process.Pid) {
					t.Fatal("tether ended when its input alone was closed; want it running while the output has a reader")
				}
			}
			ends.write.Close()
			ends.read.Close()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("tether --hangup still running 10 s after its client hung up")
			}
			if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
				t.Errorf("tether ended %v; want killed by SIGTERM, as its command was", cmd.ProcessState)
			}
			proctest.Eventually(t, "the server's child gone", func() bool { return deadOrZombie(child) })
		})
	}
}

// Without --hangup a hang-up is not watched: whatever works without
// tether works the same with it, and a pipeline stage whose neighbours
// have exited may still have work to do.
func TestRunNoHangupByDefault(t *testing.T) {
	ends := pipesFor(t)
	cmd, _, _ := startServer(t, ends, "run")
	ends.write.Close()
	ends.read.Close()
	time.Sleep(500 * time.Millisecond)
	if deadOrZombie(cmd.Process.Pid) {
		t.Fatal("tether run without --hangup ended when its client hung up; want it running")
	}
}

// --hangup with a terminal, a file or /dev/null as input or output
// watches nothing, and the run goes on as without it.
func TestRunHangupNotPipes(t *testing.T) {
	r := tether(t, nil, "run", "--hangup", "--", "/bin/sh", "-c", "exit 3")
	if r.code != 3 {
		t.Errorf("tether run --hangup with stdin the null device: exit %d (%s), want 3", r.code, r.stderr)
	}
	r = tether(t, nil, "run", "--hangup", "--exec", "--", "/bin/true")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--hangup") {
		t.Errorf("run --hangup --exec: exit %d, %q; want %d naming --hangup", r.code, r.stderr, exitUsage)
	}
}

// Under a process limit that a fork storm fills (threads count), the
// hang-up is still seen (its watch's thread is tether's before the
// storm), and the whole storm ends with no traceback.
func TestRunHangupUnderProcessLimit(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	var stderr strings.Builder
	cmd, limit := asNobody(t, 40, "run", "--hangup", "--grace", "1s", "--", bash, "-c", "while :; do sleep 100 & done 2>/dev/null")
	ends := pipesFor(t)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = ends.stdin, ends.stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ends.stdin.Close()
	ends.stdout.Close()
	done := waitedWithTERM(t, cmd)
	proctest.Eventually(t, fmt.Sprintf("the fork storm to fill the process limit of %d", limit), func() bool {
		return proc.Host().Threads(65534) >= limit-2
	})
	ends.write.Close()
	ends.read.Close()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("tether --hangup under a full process limit still running 20 s after its client hung up")
	}
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("tether ended %v; want killed by SIGTERM; stderr %q", cmd.ProcessState, stderr.String())
	}
	wantNoTraceback(t, "hang-up under a process limit", stderr.String())
	proctest.Eventually(t, "nothing of the storm left", func() bool {
		ids, unsettled := proctest.Alive(proctest.TestID(t))
		return len(ids) == 0 && !unsettled
	})
}

// waitedWithTERM reaps cmd, started, as it ends, and ends it with TERM
// if the test has not: done is closed once it is reaped.
func waitedWithTERM(t *testing.T, cmd *exec.Cmd) <-chan struct{} {
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			_ = cmd.Process.Signal(syscall.SIGTERM)
			<-done
		}
	})
	return done
}

// On a kernel without pidfds or clone3 (a seccomp filter refusing them,
// as older kernels and container profiles do), a hang-up still ends the
// run: its watch needs neither.
func TestRunHangupRefusedPidfds(t *testing.T) {
	refuse := append(append([]proctest.Refusal{}, noPidfds...), proctest.Refusal{Call: "clone3", Errno: syscall.ENOSYS})
	ends := pipesFor(t)
	cmd := refusedCmd(t, refuse, proctest.Env(t), "run", "--hangup", "--grace", "2s", "--", "/bin/sh", "-c", deafServer)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = ends.stdin, ends.stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ends.stdin.Close()
	ends.stdout.Close()
	done := waitedWithTERM(t, cmd)
	line, err := bufio.NewReader(ends.read).ReadString('\n')
	child, _ := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || child <= 0 {
		t.Fatalf("the server's first line %q: %v", line, err)
	}
	ends.write.Close()
	ends.read.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("tether --hangup without pidfds still running 10 s after its client hung up")
	}
	proctest.Eventually(t, "the server's child gone", func() bool { return deadOrZombie(child) })
}
