package spawn_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/spawn"
)

// reapScript makes orphans of three kinds while it runs, each reparented
// to Supervise's process at once (its parent, an inner sh, exits): two in
// the command's process group, and one in a session of its own that
// outlives them, so that Supervise, woken by their exits, sees it alive
// (and tells it from the program's own children by the run id in its
// environment: a zombie has none to read). It then waits until each
// of their PIDs is gone; kill -0 succeeds on a zombie, so it goes on only
// once Supervise has reaped them (and gives up, exit 9, after some 10 s).
// Last it leaves two more, a child of its own and a double-forked one,
// for the cleanup to end and reap, and exits 3.
const reapScript = `
a=$(sh -c 'sleep 0.2 </dev/null >/dev/null 2>&1 & echo $!')
b=$(sh -c 'sleep 0.2 </dev/null >/dev/null 2>&1 & echo $!')
c=$(sh -c 'setsid sleep 0.6 </dev/null >/dev/null 2>&1 & echo $!')
echo orphans $a $b $c
for p in $a $b $c; do
	n=0
	while kill -0 $p 2>/dev/null; do
		n=$((n+1)); [ $n -lt 200 ] || exit 9
		sleep 0.05
	done
done
sleep 100 </dev/null >/dev/null 2>&1 &
d=$(sh -c 'sleep 100 </dev/null >/dev/null 2>&1 & echo $!')
echo left $! $d
exit 3`

// Supervise reaps the orphans its command's tree leaves, while the
// command runs and when it has exited: none of them is left a zombie of
// the program once it returns, and the command's own status is returned.
func TestSuperviseReapsOrphans(t *testing.T) {
	needFull(t, "without the child subreaper the orphans go to init, not to Supervise")
	for _, v := range supervisors {
		t.Run(v.name, func(t *testing.T) {
			s := supervise(t, []string{"/bin/sh", "-c", reapScript}, v.env...)
			status, zombies, lines := s.result(t)
			if status != 3 {
				t.Fatalf("status %d, want 3, the command's (9: an orphan was not reaped while it ran); it said %q", status, lines)
			}
			if len(zombies) > 0 {
				t.Errorf("zombie children %v once Supervise returned, want none", zombies)
			}
			var pids []int
			for _, l := range lines {
				if strings.HasPrefix(l, "orphans ") || strings.HasPrefix(l, "left ") {
					pids = append(pids, pidsIn(l)...)
				}
			}
			if len(pids) != 5 {
				t.Fatalf("the command said %q, want 3 orphans and 2 left", lines)
			}
			for _, pid := range pids {
				if st, ok := childOf(pid, s.p.PID()); ok {
					t.Errorf("orphan %d still the program's child (state %c) once Supervise returned, want it ended and reaped", pid, st.State)
				}
			}
		})
	}
}

// modeOwnChildren is a program that starts children of its own with
// os/exec, before Supervise and while it runs, and runs Supervise as a
// library caller (no SoleReaper). Its command, sh, says "started" to the
// program and exits 4 once told. Meanwhile two children of the
// program's exit and stay zombies, unwaited for, while Supervise reaps
// on: one started before Supervise (exit 5), one started while the
// command runs (exit 6). A third, started before, outlives Supervise
// and exits 7 when told. After Supervise has returned, the program
// prints its zombie children's PIDs ("own PID PID"), Supervise's report,
// whether the third still runs, and each child's end as its exec.Cmd's
// Wait sees it.
var modeOwnChildren = proctest.Register("own-children", func() {
	fail := func(err error) {
		fmt.Println("error -1", err)
		os.Exit(2)
	}
	// told starts sh -c script with a pipe on its standard input, whose
	// closing is its signal to go on.
	told := func(script string) (*exec.Cmd, *os.File) {
		cmd := exec.Command("/bin/sh", "-c", script)
		r, w, err := os.Pipe()
		if err != nil {
			fail(err)
		}
		cmd.Stdin = r
		if err := cmd.Start(); err != nil {
			fail(err)
		}
		r.Close()
		return cmd, w
	}
	// exited waits, without reaping it, until cmd's process is a zombie.
	exited := func(cmd *exec.Cmd) {
		for i := 0; i < 2000; i++ {
			if st, err := proc.Host().Stat(cmd.Process.Pid); err != nil || st.Zombie() {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		fail(fmt.Errorf("child %d did not exit within 10s", cmd.Process.Pid))
	}
	ended := func(name string, cmd *exec.Cmd) {
		err := cmd.Wait()
		fmt.Printf("%s %d %v\n", name, cmd.ProcessState.ExitCode(), err)
	}
	before, goBefore := told("read x; exit 5")
	long, goLong := told("read x; exit 7")
	started := make(chan *exec.Cmd, 1)

	cmdOut, out, err := os.Pipe()
	if err != nil {
		fail(err)
	}
	in, cmdIn, err := os.Pipe()
	if err != nil {
		fail(err)
	}
	go func() {
		// The command runs: Supervise reaps from now on, and each exit
		// below sends it a SIGCHLD.
		line := make([]byte, 8)
		if n, _ := cmdOut.Read(line); string(line[:n]) != "started\n" {
			fmt.Printf("command said %q, want started\n", line[:n])
		}
		goBefore.Close()
		exited(before)
		during := exec.Command("/bin/sh", "-c", "exit 6")
		if err := during.Start(); err != nil {
			fail(err)
		}
		started <- during
		exited(during)
		cmdIn.Close()
	}()
	cmd := exec.Command("/bin/sh", "-c", "echo started; read x; exit 4")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, os.Stderr
	status, err := spawn.Supervise(context.Background(), cmd, spawn.Options{})
	during := <-started
	fmt.Println("own", before.Process.Pid, during.Process.Pid)
	report(status, err)
	st, err := proc.Host().Stat(long.Process.Pid)
	fmt.Println("long running", err == nil && !st.Zombie())
	ended("before", before)
	ended("during", during)
	goLong.Close()
	ended("long", long)
})

// Without SoleReaper, Supervise reaps by PID only: the program's own
// children, started before it and while it runs, that exit while it
// reaps keep their statuses for their exec.Cmd's Wait (no ECHILD, the
// right exit code), and one that outlives it is not signalled by its
// cleanup. (With SoleReaper, wait4(-1) takes them all, and the cleanup
// ends the third.)
func TestSuperviseLeavesTheProgramsChildren(t *testing.T) {
	s := startSupervision(t, modeOwnChildren, proctest.Spec{})
	status, zombies, lines := s.result(t)
	if status != 4 {
		t.Errorf("status %d, want 4, the command's", status)
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "own ") {
		t.Fatalf("the program said %q, want the PIDs of its own children first", lines)
	}
	own := pidsIn(lines[0])
	slices.Sort(own)
	slices.Sort(zombies)
	if !slices.Equal(zombies, own) {
		t.Errorf("zombie children %v once Supervise returned, want the program's own %v, and only those", zombies, own)
	}
	var rest []string
	for range 4 {
		rest = append(rest, s.next(t))
	}
	want := []string{"long running true", "before 5 exit status 5", "during 6 exit status 6", "long 7 exit status 7"}
	if strings.Join(rest, "\n") != strings.Join(want, "\n") {
		t.Errorf("the program's own children: %q, want %q (-1 and ECHILD: Supervise took a status; not running, or killed: its cleanup signalled one)", rest, want)
	}
}

// Supervise returns the command's own exit status, or 128+N when it
// died of signal N; a command it cannot start is a StartError with the
// status a shell gives it.
func TestSuperviseReturnsCommandStatus(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		status int
		start  bool // a StartError, with status
	}{
		{"exits 0", []string{"/bin/sh", "-c", "exit 0"}, 0, false},
		{"exits 7", []string{"/bin/sh", "-c", "exit 7"}, 7, false},
		{"killed by TERM", []string{"/bin/sh", "-c", "kill -TERM $$"}, 128 + int(syscall.SIGTERM), false},
		{"killed by KILL", []string{"/bin/sh", "-c", "kill -KILL $$"}, 128 + int(syscall.SIGKILL), false},
		{"not found", []string{"/no/such/command"}, 127, true},
		{"not executable", []string{"/"}, 126, true},
	}
	for _, v := range supervisors {
		t.Run(v.name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					s := supervise(t, tt.args, v.env...)
					line := s.next(t)
					want := "status " + strconv.Itoa(tt.status)
					if tt.start {
						want = "error " + strconv.Itoa(tt.status)
					}
					if line != want && !(tt.start && strings.HasPrefix(line, want+" ")) {
						t.Errorf("Supervise(%q) said %q, want %q", tt.args, line, want)
					}
				})
			}
		})
	}
}
