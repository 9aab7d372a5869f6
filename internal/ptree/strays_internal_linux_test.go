package ptree

import (
	"bufio"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
)

// A children list read again comes out of the last read: the children
// still there keep their start times, the new ones are read, and one
// that went is gone from it. Checked against a fresh stat of each.
func TestListedFollowsAList(t *testing.T) {
	sh := exec.Command("/bin/sh")
	in, _ := sh.StdinPipe()
	out, _ := sh.StdoutPipe()
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var kids []int
	spawn := func(n int) {
		for range n {
			fmt.Fprintln(in, "sleep 60 & echo $!")
			if !lines.Scan() {
				t.Fatal("no PID from sh")
			}
			pid, _ := strconv.Atoi(lines.Text())
			kids = append(kids, pid)
		}
	}
	t.Cleanup(func() {
		for _, pid := range kids {
			_ = syscall.Kill(pid, syscall.SIGKILL) // the test's own sleeps
		}
		in.Close()
		_ = sh.Wait()
	})
	fs := proc.Host()
	owner, err := fs.Stat(sh.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	key := listKey{owner: owner, tid: owner.PID}
	check := func(when string, want []int) {
		t.Helper()
		pids, _, err := proc.ReadChildren(fs.Path(owner.PID, "task/"+strconv.Itoa(owner.PID)+"/children"), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := listed(fs, key, pids)
		var gotPIDs []int
		for _, m := range got {
			st, err := fs.Stat(m.PID)
			if err != nil || st.StartTime != m.StartTime {
				t.Errorf("%s: %d listed with start time %d, has %d (%v)", when, m.PID, m.StartTime, st.StartTime, err)
			}
			gotPIDs = append(gotPIDs, m.PID)
		}
		if !slices.Equal(gotPIDs, want) {
			t.Errorf("%s: listed %v, want %v", when, gotPIDs, want)
		}
	}
	spawn(5)
	check("first read", kids)
	check("read again", kids)
	ended := kids[1]
	_ = syscall.Kill(ended, syscall.SIGKILL)
	fmt.Fprintf(in, "wait %d; echo reaped\n", ended)
	if !lines.Scan() || lines.Text() != "reaped" {
		t.Fatal("sh did not reap the sleep")
	}
	kids = slices.Delete(kids, 1, 2)
	spawn(3)
	check("one gone, three new", kids)
}
