//go:build unix

package engines

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
)

func TestSubordinateGID(t *testing.T) {
	p := filepath.Join(t.TempDir(), "subgid")
	if err := os.WriteFile(p, []byte("ci:200000:65536\n1003:300000:10\nbad:x:y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(old string) { subgidFile = old }(subgidFile)
	subgidFile = p
	tests := []struct {
		name string
		uid  int
		id   int
		want bool
	}{
		{"ci", 1001, 200000, true},
		{"ci", 1001, 265535, true},
		{"ci", 1001, 265536, false},
		{"ci", 1001, 199999, false},
		{"other", 1003, 300009, true}, // by uid
		{"other", 1004, 300009, false},
		{"bad", 1005, 1, false},
	}
	for _, tt := range tests {
		if got := subordinateGID(tt.name, tt.uid, tt.id); got != tt.want {
			t.Errorf("subordinateGID(%s, %d, %d) = %v, want %v", tt.name, tt.uid, tt.id, got, tt.want)
		}
	}
}

// The user and group of this process are found as os/user finds them.
func TestUserOf(t *testing.T) {
	u, err := user.Current()
	if err != nil {
		t.Skipf("no user database entry for this process: %v", err)
	}
	name, gid, ok := userOf(os.Getuid())
	if !ok || name != u.Username || strconv.Itoa(gid) != u.Gid {
		t.Errorf("userOf(%d) = %q, %d, %v; want %q, %s", os.Getuid(), name, gid, ok, u.Username, u.Gid)
	}
	if _, _, ok := userOf(1 << 30); ok {
		t.Error("a uid no one has was found")
	}
	if _, ok := groupID("no-such-group-" + strconv.Itoa(os.Getpid())); ok {
		t.Error("a group no one has was found")
	}
}
