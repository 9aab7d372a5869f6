package reclaim_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/reclaim"
)

// modeConnect is proctest's client of a port.
const modeConnect = proctest.Connect

// modeWorkers is proctest's server whose workers share its socket (PROCTEST_WORKERS of them).
const modeWorkers = proctest.SharedListen

func portOf(t *testing.T, s string) uint16 {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > 65535 {
		t.Fatalf("helper printed %q, want a port", s)
	}
	return uint16(n)
}

// A holder tether did not start is named and left without Foreign, and
// ended with it; a client connected to the port survives either way.
func TestForeignHolder(t *testing.T) {
	server, p := proctest.StartLine(t, modeListen, proctest.Spec{Env: []string{"PROCTEST_LISTEN=tcp4"}})
	port := portOf(t, p)
	client, line := proctest.StartLine(t, modeConnect, proctest.Spec{Env: []string{"PROCTEST_PORT=" + p}})
	if line != "connected" {
		t.Fatalf("client: %q", line)
	}
	sum, err := reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}}, reclaim.Action{Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if sum.PortsFree() || len(sum.Results) != 1 || sum.Results[0].PID != server.PID() || sum.Results[0].Outcome != reclaim.Skipped ||
		sum.Results[0].Excluded != reclaim.ForeignHolder || len(sum.Ports) != 1 || len(sum.Ports[0].Left) != 1 {
		t.Fatalf("without Foreign: %+v; want the server named, left (a foreign holder, no flag named), and the port held", sum)
	}
	if !alive(server) {
		t.Fatal("the server was signalled without Foreign")
	}
	dry, err := reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}, Foreign: true}, reclaim.Action{DryRun: true})
	if err != nil || !dry.PortsFree() || len(dry.Results) != 1 || dry.Results[0].Outcome != reclaim.WouldSignal {
		t.Fatalf("dry run with Foreign: %v %+v; want the server to be signalled, the port to be freed", err, dry)
	}
	sum, err = reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}, Foreign: true}, reclaim.Action{Grace: 5 * time.Second})
	if err != nil || !sum.PortsFree() || len(sum.Results) != 1 || sum.Results[0].Outcome != reclaim.Gone {
		t.Fatalf("with Foreign: %v %+v; want the server gone, the port free", err, sum)
	}
	if alive(server) {
		t.Error("the server is alive")
	}
	if !alive(client) {
		t.Error("the client connected to the port was ended")
	}
}

// Every process holding the socket goes: a server's forked workers share
// its listening socket, and the port is free only once all are gone.
func TestForeignHolderWithWorkers(t *testing.T) {
	_, line := proctest.StartLine(t, modeWorkers, proctest.Spec{Env: []string{"PROCTEST_WORKERS=3"}})
	port := portOf(t, strings.Fields(line)[0]) // then the workers' PIDs
	hs, err := reclaim.Holders([]uint16{port})
	pids := map[int]bool{}
	for _, h := range hs {
		pids[h.PID] = true
	}
	if err != nil || len(pids) != 4 {
		t.Fatalf("holders: %v %+v; want the server and 3 workers", err, hs)
	}
	sum, err := reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}, Foreign: true}, reclaim.Action{Grace: 5 * time.Second})
	if err != nil || !sum.PortsFree() || len(sum.Results) != 4 {
		t.Fatalf("%v %+v; want 4 holders ended and the port free", err, sum)
	}
	for _, r := range sum.Results {
		if r.Outcome != reclaim.Gone {
			t.Errorf("holder %d: %s %s %v", r.PID, r.Outcome, r.Cause.Kind, r.Cause.Err)
		}
	}
}

// A server that wrote its title over its environment (Perl's $0) is
// unverifiable as tethered or not; by its socket, Foreign ends it.
func TestForeignRenamedHolder(t *testing.T) {
	_, p, done := proctest.RenamedListener(t)
	port := portOf(t, p)
	sum, err := reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}, Foreign: true}, reclaim.Action{Grace: 5 * time.Second})
	if err != nil || !sum.PortsFree() || len(sum.Results) != 1 || sum.Results[0].Outcome != reclaim.Gone {
		t.Fatalf("%v %+v; want the renamed server gone", err, sum)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the renamed server is alive 10s after it was reported gone")
	}
}

// Another user's holder is left to root with AnyUser: without it, even
// root leaves it, and says whose it is.
func TestForeignHolderOfAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		proctest.MaySkip(modeListen)
		t.Skip("needs root to start a holder as uid 65534")
	}
	server, p := proctest.StartLine(t, modeListen, proctest.Spec{
		Path:        proctest.Copy(t, "reclaim.test"),
		Env:         []string{"PROCTEST_LISTEN=tcp4"},
		SysProcAttr: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}},
	})
	port := portOf(t, p)
	sum, err := reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}, Foreign: true}, reclaim.Action{Grace: time.Second})
	if err != nil || sum.PortsFree() || len(sum.Results) != 1 || sum.Results[0].Outcome != reclaim.Skipped ||
		sum.Results[0].Excluded != reclaim.OtherUserHolder || sum.Results[0].UID == nil || *sum.Results[0].UID != 65534 {
		t.Fatalf("without AnyUser: %v %+v; want the holder left as another user's", err, sum)
	}
	if !alive(server) {
		t.Fatal("another user's holder was signalled")
	}
	sum, err = reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}, Foreign: true, AnyUser: true}, reclaim.Action{Grace: 5 * time.Second})
	if err != nil || !sum.PortsFree() {
		t.Fatalf("as root with AnyUser: %v %+v; want the port free", err, sum)
	}
}

// A holder found, then gone, its PID taken by a new process before the
// signal: the new process holds no socket of the port and has another
// start time, and is not signalled. (Held since its check, as Reclaim
// holds it, the holder found is seen gone: TestRecycledPIDIsNotSignalled.)
func TestForeignHolderRecycledPID(t *testing.T) {
	if os.Getuid() != 0 {
		proctest.MaySkip(modeListen)
		t.Skip("needs root to write /proc/sys/kernel/ns_last_pid")
	}
	for attempt := 0; attempt < 20; attempt++ {
		old, p := proctest.StartLine(t, modeListen, proctest.Spec{Env: []string{"PROCTEST_LISTEN=tcp4"}})
		port := portOf(t, p)
		f := reclaim.Filter{Ports: []uint16{port}, Foreign: true}
		found, err := reclaim.Find(f)
		if err != nil || len(found) != 1 || found[0].PID != old.PID() {
			t.Fatalf("Find: %v %+v", err, found)
		}
		pid := old.PID()
		if err := old.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(pid-1)), 0); err != nil {
			t.Skipf("cannot set ns_last_pid: %v", err)
		}
		reused := proctest.Start(t, proctest.Wait, proctest.Spec{})
		if reused.PID() != pid {
			_ = reused.Stop()
			continue
		}
		rs := reclaim.Terminate(found, f, reclaim.Action{Grace: time.Second})
		if len(rs) != 1 || rs[0].Outcome != reclaim.Changed || len(rs[0].Signals) != 0 {
			t.Fatalf("%+v; want the recycled PID reported changed, no signal sent", rs)
		}
		if !alive(reused) {
			t.Fatal("the process that took the holder's PID was signalled")
		}
		t.Logf("PID %d recycled on attempt %d: %s", pid, attempt+1, rs[0].Cause.Kind)
		return
	}
	t.Skip("could not get the PID recycled in 20 attempts")
}
