package engines

import (
	"testing"

	"github.com/tetherproc/tether/internal/proc"
)

// What a caller read already is not read again: on a table with no
// process at all, a container is found from the cgroup path it was given
// where v2 is the only hierarchy, and nothing is found where other
// hierarchies' lines would have to be read.
func TestFindReadUsesWhatWasRead(t *testing.T) {
	empty := proc.NewFS(t.TempDir())
	r := Read{PPID: 1, Argv: []string{"nginx"}, Cgroup: "/system.slice/docker-" + idA + ".scope"}
	was := unifiedOnly
	t.Cleanup(func() { unifiedOnly = was })

	unifiedOnly = func() bool { return true }
	m := findRead(empty, 4242, r, isolated(t, nil))
	if m == nil || m.Kind != Container || m.Engine != Docker || m.ID != idA {
		t.Errorf("unified: %+v; want Docker's container %s from the path given", m, idA)
	}
	unifiedOnly = func() bool { return false }
	if m := findRead(empty, 4242, r, isolated(t, nil)); m != nil {
		t.Errorf("hybrid: %+v; want nothing: the cgroup file is read, and there is none", m)
	}
}
