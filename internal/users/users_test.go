package users

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "db")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLookup(t *testing.T) {
	p := write(t, "root:x:0:0:root:/root:/bin/bash\nbroken\nci:x:1001:1001::/home/ci:/bin/sh\nodd:x:1002:notanumber::/:/bin/sh\n")
	if name, gid, ok := lookup(p, 1001); !ok || name != "ci" || gid != 1001 {
		t.Errorf("lookup(1001) = %q, %d, %v", name, gid, ok)
	}
	for _, uid := range []int{1002, 4242} {
		if name, _, ok := lookup(p, uid); ok {
			t.Errorf("lookup(%d) = %q, want none", uid, name)
		}
	}
	if _, _, ok := lookup(filepath.Join(t.TempDir(), "none"), 0); ok {
		t.Error("a missing file found a user")
	}
}

func TestGroupID(t *testing.T) {
	p := write(t, "root:x:0:\ndocker:x:998:ci\n")
	if id, ok := groupID(p, "docker"); !ok || id != 998 {
		t.Errorf("groupID(docker) = %d, %v", id, ok)
	}
	if _, ok := groupID(p, "wheel"); ok {
		t.Error("found wheel")
	}
}

func TestSubordinate(t *testing.T) {
	p := write(t, "ci:200000:65536\n1003:300000:10\nbad:x:y\n")
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
		if got := subordinate(p, tt.name, tt.uid, tt.id); got != tt.want {
			t.Errorf("subordinate(%s, %d, %d) = %v, want %v", tt.name, tt.uid, tt.id, got, tt.want)
		}
	}
}
