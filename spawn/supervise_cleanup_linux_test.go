package spawn_test

import (
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/registry"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// leftScript starts, in the background, what a command leaves behind in
// each of the ways a process gets out of its supervisor's sight: one in
// a session of its own, one with its environment cleared, one renamed by
// exec -a (where there is bash), one that wrote its title over its
// environment with perl's $0 (where there is perl), one double-forked
// (orphaned while the command runs), and one double-forked into a
// session of its own with its environment cleared. It prints "NAME PID"
// for each, then "command PID", and exits 7 on USR1.
const leftScript = `
trap 'exit 7' USR1
setsid sleep 100 </dev/null >/dev/null 2>&1 &
echo setsid $!
env -i sleep 100 </dev/null >/dev/null 2>&1 &
echo cleared $!
if command -v bash >/dev/null; then
	bash -c 'exec -a srv-renamed sleep 100' </dev/null >/dev/null 2>&1 &
	echo exec-a $!
fi
if command -v perl >/dev/null; then
	perl -e '$0 = "srv-perl"; sleep 100' </dev/null >/dev/null 2>&1 &
	echo perl $!
fi
echo orphaned $(sh -c 'sleep 100 </dev/null >/dev/null 2>&1 & echo $!')
echo escaped $(sh -c 'setsid env -i sleep 100 </dev/null >/dev/null 2>&1 & echo $!')
echo command $$
while :; do sleep 0.05; done`

// leftBehind reads the "NAME PID" lines of leftScript up to the
// command's own, and names each process with its start time. Those still
// alive when the test ends are killed then: the leak check, which looks
// for the test's id in environments, finds none of them.
func leftBehind(t *testing.T, s *supervision) (left map[string]procid.ID, command int) {
	t.Helper()
	left = map[string]procid.ID{}
	t.Cleanup(func() {
		for _, m := range left {
			_ = kill.Signal(m, syscall.SIGKILL)
		}
	})
	for {
		f := strings.Fields(s.next(t))
		pids := pidsIn(strings.Join(f, " "))
		if len(f) != 2 || len(pids) != 1 {
			t.Fatalf("the command said %q, want NAME PID", f)
		}
		if f[0] == "command" {
			return left, pids[0]
		}
		st, err := proc.Host().Stat(pids[0])
		if err != nil {
			t.Fatalf("%s %d: %v, want it running", f[0], pids[0], err)
		}
		left[f[0]] = procid.ID{PID: pids[0], StartTime: st.StartTime}
	}
}

// When the command exits, what it left is gone by the time Supervise
// returns, however it hid: in a session of its own, renamed, with its
// environment cleared or written over, orphaned. The test first waits
// until each has become what it is to be (the renames and the exec of
// sleep are done), then has the command exit.
//
// As the sole reaper Supervise takes every process below its own for
// the run's. Without SoleReaper it must tell the run's orphans from the
// program's own children: by the run id in their environment, by the
// command's group while the command is unreaped, and by the list of the
// tree it writes down at each tick, which is what finds the renamed and
// env-cleared ones; so the test waits until the run's record lists them.
// One that left the tree (double-forked into a session of its own, its
// environment cleared) before any listing saw it is not checked there:
// it cannot be told from a child of the program's own. On the portable
// path, with no subreaper, the orphans are found by the run id, the
// command's group and the same list, and that one is out of reach.
func TestSuperviseEndsWhatTheCommandLeft(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    []string
		listed bool     // wait until the run's record lists what was left
		unsure []string // what is not promised to be ended
	}{
		{"library", nil, true, []string{"escaped"}},
		// Ended before any tick: the tree is written down as the
		// command is found exited, while its group's number is still
		// the run's, and the group's renamed members with it.
		{"library at once", nil, false, []string{"escaped"}},
		{"sole reaper", supervisors[1].env, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := supervise(t, []string{"/bin/sh", "-c", leftScript}, tc.env...)
			left, command := leftBehind(t, s)
			fs := proc.Host()
			for name, m := range left {
				proctest.Eventually(t, name+" "+strconv.Itoa(m.PID)+" to become what it is to be", func() bool {
					args, _ := fs.Cmdline(m.PID)
					env, err := fs.Environ(m.PID)
					carries := slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, marker.RunIDVar+"=") })
					switch name {
					case "exec-a":
						return len(args) > 0 && args[0] == "srv-renamed"
					case "perl":
						return len(args) > 0 && args[0] == "srv-perl" && !carries
					case "cleared", "escaped":
						return err == nil && len(env) == 0 && len(args) > 0 && args[0] == "sleep"
					}
					return true
				})
			}
			unsure := tc.unsure
			if portable {
				// No subreaper: orphaned at once, it goes to init
				// before any listing of the tree could see it.
				unsure = append(unsure, "escaped")
			}
			for _, name := range unsure {
				// Not asserted, but ended when the test ends: an
				// env-cleared one carries no test id for the leak
				// check to find it by.
				if m, ok := left[name]; ok {
					t.Cleanup(func() { _ = kill.Signal(m, syscall.SIGKILL) })
				}
				delete(left, name)
			}
			if tc.listed {
				for name, m := range left {
					proctest.Eventually(t, name+" "+strconv.Itoa(m.PID)+" on the run's record", func() bool {
						return recordOf(s.p.PID()).Has(m)
					})
				}
			}
			if err := syscall.Kill(command, syscall.SIGUSR1); err != nil {
				t.Fatal(err)
			}
			status, zombies, _ := s.result(t)
			if status != 7 {
				t.Errorf("status %d, want 7, the command's", status)
			}
			if len(zombies) > 0 {
				t.Errorf("zombie children %v once Supervise returned, want none", zombies)
			}
			for name, m := range left {
				if alive(m) {
					t.Errorf("%s %d still runs once Supervise returned, want it ended", name, m.PID)
				} else if _, ok := childOf(m.PID, s.p.PID()); ok {
					t.Errorf("%s %d ended but not reaped once Supervise returned", name, m.PID)
				}
			}
		})
	}
}

// recordOf is the record of the run that the program pid supervises, as
// written down last; the zero Record while there is none.
func recordOf(pid int) registry.Record {
	for _, rec := range registry.Read(os.Getuid()) {
		if rec.Supervisor.PID == pid {
			return rec
		}
	}
	return registry.Record{}
}

// modeTermHolder is a process that catches TERM and goes on: it prints
// "holder PID" once it catches it, and on each TERM "holder got TERM"
// and, a moment later, "holder alive after TERM". Only KILL ends it.
var modeTermHolder = proctest.Register("term-holder", func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	fmt.Println("holder", os.Getpid())
	for range ch {
		fmt.Println("holder got TERM")
		time.Sleep(100 * time.Millisecond)
		fmt.Println("holder alive after TERM")
	}
})

// With Options.Grace, what the command left gets TERM when it exits, and
// KILL once the grace is over: a grandchild that catches TERM and goes
// on is told TERM, lives on after it (the grace is not skipped), and is
// gone when Supervise returns (only KILL ends it). The grace is ten
// times the grandchild's 100 ms.
func TestSuperviseGraceThenKill(t *testing.T) {
	script := `trap 'exit 0' USR1
"$@" &
echo command $$
while :; do sleep 0.05; done`
	for _, v := range supervisors {
		t.Run(v.name, func(t *testing.T) {
			args := append([]string{"/bin/sh", "-c", script, "sh"}, helperCommand(modeTermHolder)...)
			s := supervise(t, args, append(slices.Clip(v.env), "PROCTEST_GRACE=1s")...)
			var command, holder int
			for command == 0 || holder == 0 {
				line := s.next(t)
				if !scanned(line, "command %d", &command) && !scanned(line, "holder %d", &holder) {
					t.Fatalf("the command said %q, want its PID and the holder's", line)
				}
			}
			st, err := proc.Host().Stat(holder)
			if err != nil {
				t.Fatal(err)
			}
			m := procid.ID{PID: holder, StartTime: st.StartTime}
			t.Cleanup(func() { _ = kill.Signal(m, syscall.SIGKILL) })
			if err := syscall.Kill(command, syscall.SIGUSR1); err != nil {
				t.Fatal(err)
			}
			status, zombies, lines := s.result(t)
			if status != 0 {
				t.Errorf("status %d, want 0, the command's", status)
			}
			if want := []string{"holder got TERM", "holder alive after TERM"}; !slices.Equal(lines, want) {
				t.Errorf("the holder said %q before Supervise returned, want %q: TERM, then the grace", lines, want)
			}
			if alive(m) {
				t.Errorf("holder %d, which only KILL ends, still runs once Supervise returned", holder)
			}
			if len(zombies) > 0 {
				t.Errorf("zombie children %v once Supervise returned, want none", zombies)
			}
		})
	}
}

// With Options.Forking, a command that exits 0 and leaves a daemon (a
// process in a session of its own) does not end the run: Supervise
// returns only once the daemon is gone, here when the test ends it with
// TERM, and then with the daemon's status, the last one reaped. (Without
// Forking the daemon is ended at once: TestDaemonEndedTold.)
func TestSuperviseForkingWaitsForDaemon(t *testing.T) {
	script := `setsid sleep 100 </dev/null >/dev/null 2>&1 &
echo daemon $!
echo command $$`
	for _, v := range supervisors {
		t.Run(v.name, func(t *testing.T) {
			s := supervise(t, []string{"/bin/sh", "-c", script}, append(slices.Clip(v.env), "PROCTEST_FORKING=1")...)
			var daemon, command int
			if line := s.next(t); !scanned(line, "daemon %d", &daemon) {
				t.Fatalf("the command said %q, want the daemon's PID", line)
			}
			if line := s.next(t); !scanned(line, "command %d", &command) {
				t.Fatalf("the command said %q, want its PID", line)
			}
			st, err := proc.Host().Stat(daemon)
			if err != nil {
				t.Fatalf("daemon %d: %v, want it running", daemon, err)
			}
			m := procid.ID{PID: daemon, StartTime: st.StartTime}
			t.Cleanup(func() { _ = kill.Signal(m, syscall.SIGKILL) })
			// The command has exited once Supervise has reaped it; a run
			// without Forking would end the daemon and return then.
			proctest.Eventually(t, "the command reaped", func() bool {
				_, ok := childOf(command, s.p.PID())
				return !ok
			})
			select {
			case line := <-s.lines:
				t.Fatalf("the program said %q while the daemon runs, want Supervise still running", line)
			case <-time.After(300 * time.Millisecond):
			}
			if !alive(m) {
				t.Fatalf("daemon %d gone before the test ended it, want it supervised", daemon)
			}
			if err := kill.Signal(m, syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			status, zombies, lines := s.result(t)
			if portable {
				// No subreaper: the daemon is init's to reap, and the
				// status stays the command's.
				t.Logf("status %d on the portable path", status)
			} else if status != 128+int(syscall.SIGTERM) {
				t.Errorf("status %d, want %d: the daemon's, killed by TERM", status, 128+int(syscall.SIGTERM))
			}
			if len(lines) > 0 || len(zombies) > 0 {
				t.Errorf("the program said %q, with zombie children %v, once Supervise returned; want nothing more, and none", lines, zombies)
			}
		})
	}
}
