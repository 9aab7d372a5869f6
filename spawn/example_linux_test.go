package spawn_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/reclaim"
	"github.com/tetherproc/tether/spawn"
)

// A Go program starts a tethered child: it carries the markers, runs in
// its own process group, and gets SIGTERM if the program dies. The
// command stays the program's to wait for.
func ExampleHost_Start() {
	host, err := spawn.NewHost()
	if err != nil {
		panic(err)
	}
	defer host.Close(context.Background())
	cmd := exec.Command("/bin/sh", "-c", `echo "TETHER=$TETHER TETHER_NAME=$TETHER_NAME"`)
	var out strings.Builder
	cmd.Stdout = &out
	if _, err := host.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "web"}}); err != nil {
		panic(err)
	}
	if err := cmd.Wait(); err != nil {
		panic(err)
	}
	fmt.Print(out.String())
	// Output: TETHER=1 TETHER_NAME=web
}

// Supervise is tether run: the command runs in the calling process's
// care, and what it leaves behind (here a background sleep, in a session
// of its own) is ended when it exits. How the command ended is said as
// os.ProcessState says it; Exit.Signal is the signal that killed it.
// Its main calls spawn.Init first, which gives the run a watchdog.
func ExampleSupervise() {
	cmd := exec.Command("/bin/sh", "-c", "setsid sleep 60 & exit 3")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr // nil is /dev/null, as in os/exec
	ended, err := spawn.Supervise(context.Background(), cmd, spawn.Options{
		Stamp: marker.Stamp{Name: "build"},
		Grace: 0, // KILL right after TERM for what is left
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(ended)
	// Output: exit status 3
}

// A long-running Go program (an MCP host, a dev-server manager) makes
// one Host and starts its children through it. At start it ends what an
// earlier instance of itself left running, found by the children's
// name; it stops one child with its whole tree, and closes the Host
// before it exits. Its main calls spawn.Init first: the Host starts the
// program again as the watchdog that ends every child's tree
// should the program be killed with SIGKILL.
func ExampleHost() {
	// What a crashed earlier instance stranded: its children's name.
	if _, err := reclaim.Reclaim(context.Background(), reclaim.Filter{Name: "example-agent"}, reclaim.Action{Grace: 2 * time.Second}); err != nil {
		panic(err)
	}
	host, err := spawn.NewHost()
	if err != nil {
		panic(err)
	}
	defer host.Close(context.Background())

	var agents []*spawn.Child
	for i := 0; i < 2; i++ {
		// Each agent starts a helper of its own, in a session of its
		// own, which its Stop ends with it.
		cmd := exec.Command("/bin/sh", "-c", "setsid sleep 60 & exec sleep 60")
		c, err := host.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "example-agent"}, Grace: time.Second})
		if err != nil {
			panic(err)
		}
		agents = append(agents, c)
	}
	if err := agents[0].Stop(context.Background()); err != nil {
		panic(err)
	}
	err = agents[0].Cmd.Wait() // the command stays the caller's to wait for
	fmt.Println("first agent:", err)
	fmt.Println("running:", len(host.Children()))
	if err := host.Close(context.Background()); err != nil {
		panic(err)
	}
	fmt.Println("second agent:", agents[1].Cmd.Wait())
	// Output:
	// first agent: signal: terminated
	// running: 1
	// second agent: signal: terminated
}

// Stop ends a child's whole tree: TERM, up to the child's Grace, then
// KILL, for its group, everything that carries its run id, and what was
// listed of its tree. The context bounds the wait: when it ends first,
// the grace ends there. Here the child ignores TERM, so the deadline
// has it killed.
func ExampleChild_Stop() {
	host, err := spawn.NewHost()
	if err != nil {
		panic(err)
	}
	defer host.Close(context.Background())
	cmd := exec.Command("/bin/sh", "-c", "trap '' TERM; sleep 60 & wait")
	child, err := host.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "stubborn"}, Grace: time.Minute})
	if err != nil {
		panic(err)
	}
	time.Sleep(100 * time.Millisecond) // the trap is set
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	fmt.Println("stop:", child.Stop(ctx))
	fmt.Println("child:", cmd.Wait())
	// Output:
	// stop: <nil>
	// child: signal: killed
}

// A child that serves a port is ready once it listens there: the
// program waits for that before it uses it, and stops waiting at once
// should the child die first.
func ExampleHost_Start_waitForPort() {
	host, err := spawn.NewHost()
	if err != nil {
		panic(err)
	}
	defer host.Close(context.Background())
	l, err := net.Listen("tcp4", "127.0.0.1:0") // a free port, for the example
	if err != nil {
		panic(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("perl", "-MIO::Socket::INET", "-e",
		`my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1:$ARGV[0]", Listen => 5, ReuseAddr => 1) or die $!; sleep 60`, strconv.Itoa(port))
	child, err := host.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "example-server"}})
	if err != nil {
		panic(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	fmt.Println("ready:", listening(port, exited))
	_ = child.Stop(context.Background())
	<-exited
	// Output: ready: true
}

// listening waits until something accepts a connection on port, for
// up to 10 seconds; false at once should the child exit first.
func listening(port int, exited <-chan error) bool {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-exited:
			return false
		default:
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return true
		}
	}
	return false
}
