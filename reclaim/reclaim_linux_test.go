package reclaim_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/signame"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/procid"
	"github.com/tetherproc/tether/reclaim"
)

// world is a set of processes one test started, all of one run id so that
// a real (non-dry) reclaim in a test can never reach another test's
// processes.
type world struct {
	t     *testing.T
	runID string
	dead  procid.ID
}

func newWorld(t *testing.T) *world {
	t.Helper()
	p := proctest.Start(t, proctest.Wait, proctest.Spec{})
	dead, err := proctest.SupervisorOf(p.PID())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	return &world{t: t, runID: marker.NewRunID(), dead: dead}
}

func (w *world) self() procid.ID {
	s, err := proctest.SupervisorOf(os.Getpid())
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

// start starts a helper in mode, stamped with name, this world's run id,
// and as supervisor either this test (supervised) or a process that is
// gone (stranded).
func (w *world) start(mode, name string, stranded bool, opts proctest.Spec) *proctest.Proc {
	w.t.Helper()
	sup := w.self()
	if stranded {
		sup = w.dead
	}
	opts.Env = append(marker.Markers{}.Environ(nil, marker.Stamp{Name: name, Supervisor: sup, RunID: w.runID}), opts.Env...)
	return proctest.Start(w.t, mode, opts)
}

// modeListen serves PROCTEST_LISTEN (tcp4, tcp6, udp4 or udp6) on a
// loopback port, prints the port, and waits for stdin to close; with
// PROCTEST_IGNORE_TERM set, only KILL ends it before that.
const modeListen = proctest.Listen

// startListener starts a stamped listener of kind and returns it with its port.
func (w *world) startListener(kind, name string, stranded bool, extra ...string) (*proctest.Proc, uint16) {
	w.t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		w.t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	p := w.start(modeListen, name, stranded, proctest.Spec{Env: append([]string{"PROCTEST_LISTEN=" + kind}, extra...), Stdout: pw})
	port, err := strconv.Atoi(proctest.ReadLine(w.t, pr))
	if err != nil {
		w.t.Fatal(err)
	}
	return p, uint16(port)
}

func alive(p *proctest.Proc) bool {
	select {
	case <-p.Done():
		return false
	default:
	}
	q, err := proc.Host().Process(p.PID())
	return err == nil && !q.Zombie
}

// selectedPIDs runs a dry run and returns the PIDs it would signal among pids.
func selectedPIDs(t *testing.T, opts reclaim.Filter, pids ...int) map[int]bool {
	t.Helper()
	rs, err := results(reclaim.Reclaim(context.Background(), opts, reclaim.Action{DryRun: true}))
	if err != nil {
		t.Fatal(err)
	}
	mine := map[int]bool{}
	for _, p := range pids {
		mine[p] = true
	}
	out := map[int]bool{}
	for _, r := range rs {
		if r.Outcome == reclaim.WouldSignal != r.Selected {
			t.Errorf("dry run: %d outcome %s, selected %v", r.PID, r.Outcome, r.Selected)
		}
		if r.Selected && mine[r.PID] {
			out[r.PID] = true
		}
	}
	return out
}

func pidSet(ps ...*proctest.Proc) map[int]bool {
	m := map[int]bool{}
	for _, p := range ps {
		m[p.PID()] = true
	}
	return m
}

func TestSelectionRules(t *testing.T) {
	w := newWorld(t)
	strandedWeb := w.start(proctest.Wait, "web", true, proctest.Spec{})
	strandedAPI := w.start(proctest.Wait, "api", true, proctest.Spec{})
	supervisedWeb := w.start(proctest.Wait, "web", false, proctest.Spec{})
	foreign := proctest.Start(t, proctest.Wait, proctest.Spec{Env: []string{"TETHER=0", "TETHER_NAME=web"}})
	other := newWorld(t)
	otherRun := other.start(proctest.Wait, "web", true, proctest.Spec{})
	all := []int{strandedWeb.PID(), strandedAPI.PID(), supervisedWeb.PID(), foreign.PID(), otherRun.PID()}

	tests := []struct {
		name string
		opts reclaim.Filter
		want map[int]bool
	}{
		{"default: stranded only", reclaim.Filter{}, pidSet(strandedWeb, strandedAPI, otherRun)},
		{"--all adds supervised", reclaim.Filter{All: true}, pidSet(strandedWeb, strandedAPI, supervisedWeb, otherRun)},
		{"--name", reclaim.Filter{Name: "web"}, pidSet(strandedWeb, otherRun)},
		{"--name --all", reclaim.Filter{Name: "web", All: true}, pidSet(strandedWeb, supervisedWeb, otherRun)},
		{"--run-id", reclaim.Filter{RunID: w.runID}, pidSet(strandedWeb, strandedAPI)},
		{"--run-id --all --name", reclaim.Filter{RunID: w.runID, All: true, Name: "web"}, pidSet(strandedWeb, supervisedWeb)},
		{"--any-user", reclaim.Filter{AnyUser: true, RunID: w.runID}, pidSet(strandedWeb, strandedAPI)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := selectedPIDs(t, tt.opts, all...)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("selected %v, want %v", got, tt.want)
			}
		})
	}
	// A real reclaim of one run ends exactly that run's stranded processes.
	rs, err := results(reclaim.Reclaim(context.Background(), reclaim.Filter{RunID: w.runID}, reclaim.Action{Grace: 5 * time.Second}))
	if err != nil || !(reclaim.Summary{Results: rs}).AllGone() {
		t.Fatalf("%v %+v", err, rs)
	}
	for _, p := range []*proctest.Proc{strandedWeb, strandedAPI} {
		proctest.Eventually(t, "stranded process reclaimed", func() bool { return !alive(p) })
	}
	for _, p := range []*proctest.Proc{supervisedWeb, foreign, otherRun} {
		if !alive(p) {
			t.Errorf("%d was not selected, yet is gone", p.PID())
		}
	}
}

// TCP and UDP, IPv4 and IPv6: the holder of the port is found, and a
// stranded one is reclaimed until the port is free.
func TestReclaimByPort(t *testing.T) {
	for _, kind := range []string{"tcp4", "tcp6", "udp4", "udp6"} {
		t.Run(kind, func(t *testing.T) {
			w := newWorld(t)
			p, port := w.startListener(kind, "srv", true)
			hs, err := reclaim.Holders([]uint16{port})
			if err != nil || len(hs) != 1 || hs[0].PID != p.PID() {
				t.Fatalf("Holders(%d) = %+v, %v; want PID %d", port, hs, err, p.PID())
			}
			if proto := kind[:3]; hs[0].Listener.Proto != proto {
				t.Errorf("proto %s, want %s", hs[0].Listener.Proto, proto)
			}
			rs, err := results(reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}, RunID: w.runID}, reclaim.Action{Grace: 5 * time.Second}))
			if err != nil || len(rs) != 1 || rs[0].Outcome != reclaim.Gone || sentNames(rs[0].Signals) != "TERM" {
				t.Fatalf("%v %+v", err, rs)
			}
			proctest.Eventually(t, "port free", func() bool {
				hs, _ := reclaim.Holders([]uint16{port})
				return len(hs) == 0
			})
		})
	}
}

// A connected client's local port is not a listener.
func TestClientIsNotAListener(t *testing.T) {
	p, port := newWorld(t).startListener("tcp4", "srv", false)
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	local := uint16(c.LocalAddr().(*net.TCPAddr).Port)
	hs, err := reclaim.Holders([]uint16{local})
	if err != nil || len(hs) != 0 {
		t.Errorf("Holders(client port %d) = %+v, %v", local, hs, err)
	}
	if hs, _ := reclaim.Holders([]uint16{port}); len(hs) != 1 || hs[0].PID != p.PID() {
		t.Errorf("Holders(%d) = %+v", port, hs)
	}
}

func TestStrandedIgnoringTERMIsKilled(t *testing.T) {
	w := newWorld(t)
	p, port := w.startListener("tcp4", "stubborn", true, "PROCTEST_IGNORE_TERM=1")
	rs, err := results(reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}, RunID: w.runID}, reclaim.Action{Grace: 300 * time.Millisecond}))
	if err != nil || len(rs) != 1 {
		t.Fatalf("%v %+v", err, rs)
	}
	if rs[0].Outcome != reclaim.Gone || sentNames(rs[0].Signals) != "TERM,KILL" {
		t.Errorf("%+v", rs[0])
	}
	proctest.Eventually(t, "gone", func() bool { return !alive(p) })
}

// A reclaim whose context ends during a long grace does not wait the
// grace out: SIGKILL goes at once, the holder is reported gone, and the
// error says why the grace was cut short.
func TestReclaimContextCutsGraceShort(t *testing.T) {
	w := newWorld(t)
	p, port := w.startListener("tcp4", "stubborn", true, "PROCTEST_IGNORE_TERM=1")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	began := time.Now()
	sum, err := reclaim.Reclaim(ctx, reclaim.Filter{Ports: []uint16{port}, RunID: w.runID}, reclaim.Action{Grace: time.Minute, Settle: time.Minute})
	if took := time.Since(began); took > 30*time.Second {
		t.Errorf("Reclaim took %v of a minute's grace after its context ended", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Reclaim error = %v, want one that wraps context.DeadlineExceeded", err)
	}
	if len(sum.Results) != 1 || sum.Results[0].Outcome != reclaim.Gone || sentNames(sum.Results[0].Signals) != "TERM,KILL" {
		t.Errorf("results = %+v, want the holder gone by TERM then KILL", sum.Results)
	}
	proctest.Eventually(t, "gone", func() bool { return !alive(p) })
}

func TestForeignListenerUntouched(t *testing.T) {
	pr, pw, _ := os.Pipe()
	defer pr.Close()
	defer pw.Close()
	p := proctest.Start(t, modeListen, proctest.Spec{Env: []string{"PROCTEST_LISTEN=tcp4"}, Stdout: pw})
	port, _ := strconv.Atoi(proctest.ReadLine(t, pr))
	rs, err := results(reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{uint16(port)}, All: true, AnyUser: true}, reclaim.Action{Grace: time.Second}))
	if err != nil || len(rs) != 1 || rs[0].Selected || rs[0].Outcome != reclaim.Skipped || rs[0].Verdict != probe.Foreign || len(rs[0].Signals) != 0 {
		t.Fatalf("%v %+v; want the foreign holder skipped, no signal sent", err, rs)
	}
	if !(reclaim.Summary{Results: rs}).AllGone() {
		t.Error("a skipped foreign holder counts as a failure; want exit 0")
	}
	// Every signal sent is recorded in Signals, which is empty: the
	// listener is alive, and still serves its port.
	if !alive(p) {
		t.Error("foreign listener is gone; want it alive")
	}
	if c, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(port)); err != nil {
		t.Errorf("foreign listener no longer accepts on %d: %v", port, err)
	} else {
		c.Close()
	}
}

func TestSupervisedUntouchedUnlessAll(t *testing.T) {
	w := newWorld(t)
	p, port := w.startListener("tcp6", "srv", false)
	rs, err := results(reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}, RunID: w.runID}, reclaim.Action{Grace: time.Second}))
	if err != nil || len(rs) != 1 || rs[0].Outcome != reclaim.Skipped || rs[0].Excluded != reclaim.SupervisedRun {
		t.Fatalf("%v %+v", err, rs)
	}
	if !alive(p) {
		t.Fatal("supervised listener is gone without --all")
	}
	rs, err = results(reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}, RunID: w.runID, All: true}, reclaim.Action{Grace: 5 * time.Second}))
	if err != nil || len(rs) != 1 || rs[0].Outcome != reclaim.Gone {
		t.Fatalf("--all: %v %+v", err, rs)
	}
}

func TestOtherUsersStrandedUntouched(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to start a process as uid 65534")
	}
	w := newWorld(t)
	p := w.start(proctest.Wait, "nobody", true, proctest.Spec{
		Path:        proctest.Copy(t, "reclaim.test"),
		SysProcAttr: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}},
	})
	if got := selectedPIDs(t, reclaim.Filter{RunID: w.runID}, p.PID()); len(got) != 0 {
		t.Errorf("another user's process selected without --any-user")
	}
	rs, err := results(reclaim.Reclaim(context.Background(), reclaim.Filter{RunID: w.runID}, reclaim.Action{Grace: time.Second}))
	if err != nil || len(rs) != 0 {
		t.Errorf("without --any-user: %v %+v", err, rs)
	}
	if !alive(p) {
		t.Fatal("another user's process is gone")
	}
	rs, err = results(reclaim.Reclaim(context.Background(), reclaim.Filter{RunID: w.runID, AnyUser: true}, reclaim.Action{Grace: 5 * time.Second}))
	if err != nil || len(rs) != 1 || rs[0].Outcome != reclaim.Gone {
		t.Fatalf("--any-user: %v %+v", err, rs)
	}
}

// Whose a process is has one definition, its real uid, on both paths: a
// stranded tethered listener of another user is left out of the plain
// scan, and found as the holder of its port but skipped, with the reason;
// run --port refuses it. --any-user takes it on both.
func TestOtherUsersPortHolderSkipped(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to start a process as uid 65534")
	}
	w := newWorld(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	p := w.start(modeListen, "nobody", true, proctest.Spec{
		Path:        proctest.Copy(t, "reclaim.test"),
		Env:         []string{"PROCTEST_LISTEN=tcp4"},
		Stdout:      pw,
		SysProcAttr: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}},
	})
	n, err := strconv.Atoi(proctest.ReadLine(t, pr))
	if err != nil {
		t.Fatal(err)
	}
	port := uint16(n)
	if rs, err := results(reclaim.Reclaim(context.Background(), reclaim.Filter{RunID: w.runID}, reclaim.Action{DryRun: true})); err != nil || len(rs) != 0 {
		t.Errorf("plain scan without --any-user: %v %+v; want nothing found", err, rs)
	}
	rs, err := results(reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}}, reclaim.Action{Grace: time.Second}))
	if err != nil || len(rs) != 1 || rs[0].PID != p.PID() || rs[0].Outcome != reclaim.Skipped || rs[0].Excluded != reclaim.OtherUser || rs[0].UID == nil || *rs[0].UID != 65534 {
		t.Errorf("--port %d without --any-user: %v %+v; want PID %d skipped as another user's", port, err, rs, p.PID())
	}
	// What run --port refuses by: the port still held, by a holder left
	// out as another user's.
	sum, err := reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}}, reclaim.Action{Grace: time.Second})
	if err != nil || sum.PortsFree() || len(sum.Results) != 1 || sum.Results[0].Excluded != reclaim.OtherUser {
		t.Errorf("--port %d as run --port takes it: %v %+v; want the port held by PID %d, left out as another user's", port, err, sum, p.PID())
	}
	if !alive(p) {
		t.Fatal("another user's port holder is gone")
	}
	rs, err = results(reclaim.Reclaim(context.Background(), reclaim.Filter{Ports: []uint16{port}, AnyUser: true}, reclaim.Action{Grace: 5 * time.Second}))
	if err != nil || len(rs) != 1 || rs[0].Outcome != reclaim.Gone {
		t.Fatalf("--port %d --any-user: %v %+v; want the holder gone", port, err, rs)
	}
}

// A PID recycled between finding and signalling: the process now under
// the PID is stamped alike (same name, same run) but is another process,
// and is not signalled. Held since its check (a pidfd where the kernel has
// them), the process found is seen gone, whatever start time the new one
// has; opened only before the signal (no handle could be had when it was
// checked), the start time read again tells them apart, a tick later.
func TestRecycledPIDIsNotSignalled(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to write /proc/sys/kernel/ns_last_pid")
	}
	for _, variant := range []string{"held since its check", "opened before its signal"} {
		t.Run(variant, func(t *testing.T) {
			w := newWorld(t)
			f := reclaim.Filter{RunID: w.runID}
			for attempt := 0; attempt < 20; attempt++ {
				old := w.start(proctest.Wait, "web", true, proctest.Spec{})
				var terminate func() []reclaim.Result
				var found []reclaim.Process
				var err error
				if variant == "held since its check" {
					var held *reclaim.Held
					held, err = reclaim.FindHeld(f)
					if held != nil {
						found, terminate = held.Procs, func() []reclaim.Result { return held.Terminate(f, reclaim.Action{Grace: time.Second}) }
					}
					if !pidfd.ByPidfd() {
						// Held by its start time (the portable path),
						// which a PID recycled within the same clock tick
						// shares: a tick later.
						time.Sleep(30 * time.Millisecond)
					}
				} else {
					found, err = reclaim.Find(f)
					terminate = func() []reclaim.Result { return reclaim.Terminate(found, f, reclaim.Action{Grace: time.Second}) }
					time.Sleep(30 * time.Millisecond) // a later clock tick
				}
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
				reused := w.start(proctest.Wait, "web", true, proctest.Spec{})
				if reused.PID() != pid {
					_ = reused.Stop() // another process took the PID first; again
					if variant == "held since its check" {
						terminate() // closes its handle: the one held is gone
					}
					continue
				}
				rs := terminate()
				want := reclaim.Changed
				if variant == "held since its check" {
					want = reclaim.AlreadyGone
				}
				if len(rs) != 1 || rs[0].Outcome != want || len(rs[0].Signals) != 0 {
					t.Fatalf("%+v; want the process found reported %s, no signal sent", rs, want)
				}
				if !alive(reused) {
					t.Fatal("the process that reused the PID was signalled")
				}
				t.Logf("PID %d recycled on attempt %d: %s %s", pid, attempt+1, rs[0].Outcome, rs[0].Cause.Kind)
				return
			}
			t.Skip("could not get the PID recycled in 20 attempts")
		})
	}
}

// 50 supervised children, reclaim run again and again: none is signalled.
func TestConcurrentReclaimLeavesSupervisedAlone(t *testing.T) {
	w := newWorld(t)
	name := "conc-" + w.runID[:8]
	var procs []*proctest.Proc
	for i := 0; i < 50; i++ {
		procs = append(procs, w.start(proctest.Wait, name, false, proctest.Spec{}))
	}
	for round := 0; round < 10; round++ {
		rs, err := results(reclaim.Reclaim(context.Background(), reclaim.Filter{Name: name}, reclaim.Action{Grace: time.Second}))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if len(r.Signals) > 0 || r.Outcome != reclaim.Skipped {
				t.Fatalf("round %d: %d %s %v", round, r.PID, r.Outcome, r.Signals)
			}
		}
	}
	for _, p := range procs {
		if !alive(p) {
			t.Errorf("supervised %d is gone", p.PID())
		}
	}
}

func BenchmarkFindByPort(b *testing.B) {
	pr, pw, _ := os.Pipe()
	defer pr.Close()
	defer pw.Close()
	proctest.Start(b, modeListen, proctest.Spec{Env: []string{"PROCTEST_LISTEN=tcp4", "TETHER=1"}, Stdout: pw})
	port, _ := strconv.Atoi(proctest.ReadLine(b, pr))
	for b.Loop() {
		if _, err := reclaim.Find(reclaim.Filter{Ports: []uint16{uint16(port)}}); err != nil {
			b.Fatal(err)
		}
	}
}

// results is the per-process part of a reclaim's summary.
func results(s reclaim.Summary, err error) ([]reclaim.Result, error) { return s.Results, err }

// sentNames is what a reclaim sent, as "TERM,KILL".
func sentNames(sent []reclaim.Sent) string {
	s := make([]string, len(sent))
	for i, x := range sent {
		s[i] = signame.Name(x.Signal)
		if x.ToSupervisor {
			s[i] += " (to its supervisor)"
		}
	}
	return strings.Join(s, ",")
}
