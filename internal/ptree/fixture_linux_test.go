package ptree_test

import (
	"os/exec"
	"reflect"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

// fixtureFS is the whole process table on disk that internal/proc's
// readers are tested on: the walks run on what those readers give.
var fixtureFS = proc.NewFS("../proc/testdata/fs")

func TestScanAndSubtreeOfFixture(t *testing.T) {
	matched, executing := ptree.Scan(fixtureFS, []string{"TETHER=1", "TETHER_NAME=web"})
	if want := []procid.ID{{PID: 5971, StartTime: 31814}}; !reflect.DeepEqual(matched, want) || !reflect.DeepEqual(executing, []int{5983}) {
		t.Errorf("Scan = %v, executing %v; want %v, executing [5983]", matched, executing, want)
	}
	if matched, _ := ptree.Scan(fixtureFS, []string{"TETHER=1", "TETHER_NAME=we"}); len(matched) != 0 {
		t.Errorf("Scan for another name = %v; want none", matched)
	}
	if tree := ptree.Subtree(fixtureFS, 5971, 0); !reflect.DeepEqual(tree, []procid.ID{{PID: 5983, StartTime: 31855}}) {
		t.Errorf("Subtree(5971) = %v; want the live child 5983 only", tree)
	}
	if tree := ptree.Subtree(fixtureFS, 5971, 5983); len(tree) != 0 {
		t.Errorf("Subtree(5971) skipping 5983 = %v; want none", tree)
	}
}

// Snapshot.Subtree, by parent links, finds what Subtree, by children lists,
// finds: a shell's children and grandchildren.
func TestSubtreeByParentLinks(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", `sleep 30 & sh -c "sleep 30 & wait" & wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}()
	fs := proc.Host()
	deadline := time.Now().Add(10 * time.Second)
	for len(ptree.Subtree(fs, cmd.Process.Pid, 0)) < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	snap, err := ptree.ReadSnapshot(fs)
	if err != nil {
		t.Fatal(err)
	}
	byLinks, byLists := snap.Subtree([]int{cmd.Process.Pid}, 0, 0), ptree.Subtree(fs, cmd.Process.Pid, 0)
	slices.SortFunc(byLinks, func(a, b procid.ID) int { return a.PID - b.PID })
	slices.SortFunc(byLists, func(a, b procid.ID) int { return a.PID - b.PID })
	if len(byLists) != 3 || !reflect.DeepEqual(byLinks, byLists) {
		t.Errorf("Snapshot.Subtree = %v, Subtree = %v; want the same three", byLinks, byLists)
	}
}
