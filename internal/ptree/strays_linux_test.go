package ptree_test

import (
	"fmt"
	"os/exec"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

// A process that left its tree (its parent gone, a session of its own)
// is found by the entry it carries among the children of the caller's
// ancestors, with its child, the value of the key read from it; one
// started before since, or known to the caller, is not read. On the
// portable path, which follows no children lists, every process is read.
func TestStrays(t *testing.T) {
	entry := "PROCTEST_STRAY=" + proctest.TestID(t)
	cmd := exec.Command("/bin/sh", "-c", `sh -c 'setsid sh -c "sleep 60 & exec sleep 61" >/dev/null 2>&1 & echo $! $$'`)
	cmd.Env = append(proctest.Env(t), entry, "PROCTEST_VALUE=v1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var pid, parent int
	if _, err := fmt.Sscan(string(out), &pid, &parent); err != nil {
		t.Fatalf("no stray: %q", out)
	}
	fs := proc.Host()
	var stray procid.ID
	// Past its execve, too: its command name changes before its new
	// environment can be read, and one caught in between is reported
	// executing, not matched.
	readable := func(pid int) bool {
		st, err := fs.Stat(pid)
		if err != nil || st.Comm != "sleep" {
			return false
		}
		env, err := fs.Environ(pid)
		return err == nil && slices.Contains(env, entry)
	}
	proctest.Eventually(t, "the stray to leave its parent and have its child, both past their execve", func() bool {
		st, err := fs.Stat(pid)
		stray = procid.ID{PID: pid, StartTime: st.StartTime}
		sub := ptree.Subtree(fs, pid, 0)
		return err == nil && st.PPID != parent && st.Comm == "sleep" && len(sub) == 1 && readable(pid) && readable(sub[0].PID)
	})
	child := ptree.Subtree(fs, pid, 0)[0]
	t.Cleanup(func() {
		for _, m := range []procid.ID{stray, child} {
			_ = kill.SignalIn(fs, m, unix.SIGKILL) // the test's own
		}
	})

	vs, executing, full := ptree.Strays(fs, stray.StartTime, []string{"PROCTEST_NONE=1", entry}, "PROCTEST_VALUE", nil, nil)
	if full == ptree.ChildrenLists {
		t.Fatalf("Strays read every process: %v; want %v (children lists followed: %v)", full, !ptree.ChildrenLists, ptree.ChildrenLists)
	}
	want := []ptree.Valued{{ID: stray, Value: "v1"}, {ID: child, Value: "v1"}}
	if !slices.Equal(vs, want) {
		t.Errorf("Strays = %v (executing %v), want %v", vs, executing, want)
	}
	if vs, _, _ := ptree.Strays(fs, stray.StartTime+1, []string{entry}, "PROCTEST_VALUE", nil, nil); len(vs) != 0 && ptree.ChildrenLists {
		t.Errorf("Strays since after the stray started = %v, want none", vs)
	}
	known := func(pid int) bool { return pid == stray.PID }
	if vs, _, _ := ptree.Strays(fs, stray.StartTime, []string{entry}, "PROCTEST_VALUE", known, nil); len(vs) != 0 && ptree.ChildrenLists {
		t.Errorf("Strays with the stray known = %v, want none", vs)
	}
}
