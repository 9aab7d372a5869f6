package ptree_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

// A snapshot of the fixture table holds what its stat files say, and the
// walk by parent links on it finds what Subtree finds.
func TestSnapshotOfFixture(t *testing.T) {
	snap, err := ptree.ReadSnapshot(fixtureFS)
	if err != nil || snap.Len() != 4 {
		t.Fatalf("Snapshot() = %d processes, %v; want the fixture's 4", snap.Len(), err)
	}
	if p, ok := snap.Process(5971); !ok || p.PPID != 5970 || p.PGID != 5965 || p.StartTime != 31814 || p.Zombie || p.UID != -1 {
		t.Errorf("Process(5971) = %+v, %v; want parent 5970, group 5965, start 31814, alive, user unknown", p, ok)
	}
	if !snap.Alive(procid.ID{PID: 5983, StartTime: 31855}) || snap.Alive(procid.ID{PID: 5983, StartTime: 1}) || snap.Alive(procid.ID{PID: 6049, StartTime: 32200}) {
		t.Errorf("Alive: want 5983 with its start time only, and not the zombie 6049")
	}
	want := []procid.ID{{PID: 5983, StartTime: 31855}}
	if got := snap.Subtree([]int{5971}, 0, 0); !reflect.DeepEqual(got, want) {
		t.Errorf("Descendants(5971) = %v; want the live child 5983 only", got)
	}
	// 6050's group is 5965, as 5983's is; 5971 is in it too but is the
	// root.
	got := snap.Subtree([]int{5971}, 0, 5965)
	slices.SortFunc(got, func(a, b procid.ID) int { return a.PID - b.PID })
	if want := []procid.ID{{PID: 5983, StartTime: 31855}, {PID: 6050, StartTime: 31855}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Descendants(5971, group 5965) = %v; want %v", got, want)
	}
	// A table given a moment lists only what started since.
	tab := ptree.NewTable(fixtureFS)
	tab.Since(31850)
	snap, err = tab.Snapshot()
	if err != nil || snap.Len() != 3 {
		t.Fatalf("Table since 31850: %d processes, %v; want 3 (not 5971)", snap.Len(), err)
	}
	if _, ok := snap.Process(5971); ok {
		t.Errorf("Table since 31850 lists 5971, started at 31814")
	}
	if got := snap.Subtree([]int{5971}, 0, 0); !reflect.DeepEqual(got, want[:1]) {
		t.Errorf("Descendants(5971) from the table = %v; want %v", got, want[:1])
	}
}

// writeStat lays out a process's stat file under root as /proc has it.
func writeStat(t *testing.T, root string, pid, ppid int, start uint64) {
	t.Helper()
	dir := filepath.Join(root, strconv.Itoa(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("%d (p%d) S %d %d %d 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %d 0 0\n", pid, pid, ppid, pid, pid, start)
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A link from a process to a parent younger than itself is a parent's PID
// taken again since the link was read: the walk does not follow it, so
// that an older process is never taken for a newer one's child.
func TestSnapshotSkipsLinksToYoungerParents(t *testing.T) {
	root := t.TempDir()
	writeStat(t, root, 10, 1, 500)  // the root of the walk
	writeStat(t, root, 20, 10, 100) // older than 10: its parent was another 10
	writeStat(t, root, 30, 10, 600) // 10's child
	writeStat(t, root, 40, 30, 600) // 30's, started in the same tick
	snap, err := ptree.ReadSnapshot(proc.NewFS(root))
	if err != nil {
		t.Fatal(err)
	}
	got := snap.Subtree([]int{10}, 0, 0)
	slices.SortFunc(got, func(a, b procid.ID) int { return a.PID - b.PID })
	if want := []procid.ID{{PID: 30, StartTime: 600}, {PID: 40, StartTime: 600}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Descendants(10) = %v; want %v, not the older 20", got, want)
	}
}

// A table set up before a tree starts lists the tree and nothing that
// was there before, follows it as it changes, and never lists the
// processes there were before.
func TestTableFollowsNewProcesses(t *testing.T) {
	start := func(arg string) *exec.Cmd {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", arg)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		})
		return cmd
	}
	fs := proc.Host()
	before := start("exec sleep 30")
	tab := ptree.NewTable(fs)
	tab.Before()
	tree := start("sleep 30 & sleep 30 & wait")
	st, err := fs.Stat(tree.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	tab.Since(st.StartTime)
	var kids []procid.ID
	deadline := time.Now().Add(10 * time.Second)
	for len(kids) < 2 && time.Now().Before(deadline) {
		snap, err := tab.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		kids = snap.Subtree([]int{tree.Process.Pid}, 0, 0)
		time.Sleep(5 * time.Millisecond)
	}
	if len(kids) != 2 {
		t.Fatalf("the table's tree of %d: %v; want its two sleeps", tree.Process.Pid, kids)
	}
	for i := 0; i < 3; i++ {
		// Twice in a row too, with nothing started in between.
		snap, err := tab.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := snap.Process(before.Process.Pid); ok {
			t.Errorf("snapshot %d lists %d, there before the table was", i, before.Process.Pid)
		}
		if _, ok := snap.Process(os.Getpid()); ok {
			t.Errorf("snapshot %d lists the test itself", i)
		}
		if got := snap.Subtree([]int{tree.Process.Pid}, 0, 0); len(got) != 2 {
			t.Errorf("snapshot %d: tree %v; want its two sleeps", i, got)
		}
	}
	// One sleep ends: the next snapshots no longer list it.
	if err := kill.SignalIn(fs, kids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		snap, err := tab.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if !snap.Alive(kids[0]) {
			if got := snap.Subtree([]int{tree.Process.Pid}, 0, 0); !reflect.DeepEqual(got, kids[1:]) {
				t.Errorf("tree after %d ended: %v; want %v", kids[0].PID, got, kids[1:])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d still listed 10s after its SIGKILL", kids[0].PID)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
