//go:build linux

package callerchain

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// fakeStat writes /proc/PID/stat under root as the kernel lays it out.
func fakeStat(t *testing.T, root string, pid int, comm string, ppid, sid, tty int, start uint64) {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprint(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("%d (%s) S %d %d %d %d -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %d 0 0\n", pid, comm, ppid, pid, sid, tty, start)
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The walk up the caller's chain: through make and the login shell, up
// to the daemon that made the session (sshd, restarted without ending
// its sessions), systemd (a subreaper), or the tether run tether runs in.
func TestCallerChain(t *testing.T) {
	root := t.TempDir()
	// sshd 60 (daemon of init) > its session 70 > bash 80 (tty) > make 90 > sh 100 > tether
	fakeStat(t, root, 60, "sshd", 1, 60, 0, 6)
	fakeStat(t, root, 70, "sshd-session", 60, 70, 0, 7)
	fakeStat(t, root, 80, "bash", 70, 80, 34816, 8)
	fakeStat(t, root, 90, "make", 80, 80, 34816, 9)
	fakeStat(t, root, 100, "sh", 90, 80, 34816, 10)
	// systemd --user 20 > terminal 30 (a daemon of systemd) > bash 40 > sh 45
	fakeStat(t, root, 20, "systemd", 1, 20, 0, 2)
	fakeStat(t, root, 30, "gnome-terminal-", 20, 30, 0, 3)
	fakeStat(t, root, 40, "bash", 30, 40, 34817, 4)
	fakeStat(t, root, 45, "sh", 40, 40, 34817, 5)
	// a tether run 200 > make 210 > sh 220
	fakeStat(t, root, 200, "tether", 80, 80, 34816, 20)
	fakeStat(t, root, 210, "make", 200, 80, 34816, 21)
	fakeStat(t, root, 220, "sh", 210, 80, 34816, 22)
	// sh 300 > sh 310 > 999, which this /proc does not show (hidepid)
	fakeStat(t, root, 300, "sh", 310, 80, 34816, 30)
	fakeStat(t, root, 310, "sh", 999, 80, 34816, 31)
	fs := proc.NewFS(root)
	for _, tc := range []struct {
		name string
		s    stops
		ppid int
		want []int
	}{
		{"ssh session", stops{}, 100, []int{90, 80, 70}},
		{"terminal of systemd --user", stops{}, 45, []int{40}},
		{"parent is a daemon", stops{}, 30, nil},
		{"parent is init", stops{}, 1, nil},
		{"inside a tether run", stops{supervisor: procid.ID{PID: 200, StartTime: 20}}, 220, []int{210}},
		{"the parent is the tether run", stops{supervisor: procid.ID{PID: 200, StartTime: 20}}, 200, nil},
		{"the parent is systemd", stops{}, 20, nil},
		{"an ancestor cannot be read", stops{}, 300, []int{310}},
		{"a recycled supervisor PID", stops{supervisor: procid.ID{PID: 200, StartTime: 99}}, 220, []int{210, 200, 80, 70}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chain, err := callerChain(fs, tc.s, tc.ppid)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, m := range chain {
				got = append(got, m.PID)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("chain from %d: %v, want %v", tc.ppid, got, tc.want)
			}
			if !chainIntact(fs, tc.ppid, chain) {
				t.Errorf("chain %v not intact", got)
			}
		})
	}
	// make 90 died: the shell below it went to init.
	fakeStat(t, root, 100, "sh", 1, 80, 34816, 10)
	if chainIntact(fs, 100, []procid.ID{{PID: 90, StartTime: 9}, {PID: 80, StartTime: 8}}) {
		t.Errorf("chain intact after a link broke, want broken")
	}
}
