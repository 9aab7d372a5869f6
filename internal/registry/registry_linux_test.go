//go:build linux

package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tetherproc/tether/procid"
)

const testRun = "0123456789abcdef0123456789abcdef"

// useDir points the calling user's records at a fresh directory.
func useDir(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "tether")
	if os.Getuid() == 0 {
		// Root's records are in /run/tether, which a test must not
		// touch: here, in the test's own directory.
		old := rootDir
		rootDir = dir
		t.Cleanup(func() { rootDir = old })
		return dir
	}
	t.Setenv("XDG_RUNTIME_DIR", base)
	return dir
}

func TestWriteReadRemove(t *testing.T) {
	dir := useDir(t)
	rec := Record{RunID: testRun, Name: "web", Supervisor: procid.ID{PID: 10, StartTime: 5}, Command: []string{"nginx"},
		Stamp: []string{"TETHER=1"}, Members: []procid.ID{{PID: 11, StartTime: 6}}}
	w, err := Create(rec)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(dir); err != nil || st.Mode().Perm() != 0o700 || !st.IsDir() {
		t.Fatalf("directory %s: %v %v, want a 0700 directory", dir, st.Mode(), err)
	}
	w.Members([]procid.ID{{PID: 11, StartTime: 6}, {PID: 12, StartTime: 7}})
	got := Read(os.Getuid())
	if len(got) != 1 || got[0].RunID != testRun || len(got[0].Members) != 2 || got[0].Owner != os.Getuid() {
		t.Fatalf("read %+v, want the record with 2 members", got)
	}
	if !got[0].Has(procid.ID{PID: 12, StartTime: 7}) || got[0].Has(procid.ID{PID: 12, StartTime: 8}) {
		t.Errorf("Has: want 12:7 a member, 12:8 not")
	}
	w.Remove()
	if got := Read(os.Getuid()); len(got) != 0 {
		t.Errorf("after Remove, read %+v, want none", got)
	}
}

// A directory that is a symlink, open to others or someone else's is
// refused: nothing written, nothing read.
func TestDirectoryRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, dir string)
	}{
		{"symlink", func(t *testing.T, dir string) {
			target := t.TempDir()
			os.Chmod(target, 0o700)
			if err := os.Symlink(target, dir); err != nil {
				t.Fatal(err)
			}
		}},
		{"mode 0755", func(t *testing.T, dir string) {
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			os.Chmod(dir, 0o755)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := useDir(t)
			tc.make(t, dir)
			w, err := Create(Record{RunID: testRun})
			if w != nil || !errors.Is(err, ErrRefused) {
				t.Fatalf("Create: %v, %v; want refused", w, err)
			}
			if _, err := openDir(dir, os.Getuid(), false); !errors.Is(err, ErrRefused) {
				t.Errorf("open for reading: %v, want refused", err)
			}
		})
	}
}

// A record that is a symlink, open to others, or that holds another
// run than its name says is not read.
func TestRecordRefused(t *testing.T) {
	dir := useDir(t)
	w, err := Create(Record{RunID: testRun, Members: []procid.ID{{PID: 1, StartTime: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Remove()
	good, _ := os.ReadFile(filepath.Join(dir, testRun+".json"))
	other := strings.Repeat("a", 32)
	if err := os.WriteFile(filepath.Join(dir, other+".json"), good, 0o600); err != nil {
		t.Fatal(err)
	}
	third := strings.Repeat("b", 32)
	if err := os.WriteFile(filepath.Join(dir, third+".json"), []byte(strings.Replace(string(good), testRun, third, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(dir, third+".json"), 0o644)
	fourth := strings.Repeat("c", 32)
	if err := os.Symlink(filepath.Join(dir, testRun+".json"), filepath.Join(dir, fourth+".json")); err != nil {
		t.Fatal(err)
	}
	got := Read(os.Getuid())
	if len(got) != 1 || got[0].RunID != testRun {
		t.Errorf("read %+v, want only the record of %s", got, testRun)
	}
}

func TestHonours(t *testing.T) {
	if !(Record{Owner: 0}).Honours(1000) || !(Record{Owner: 1000}).Honours(1000) || (Record{Owner: 1000}).Honours(0) {
		t.Error("want root's records honoured for any uid, a user's only for that user's")
	}
}

func TestParseRefusesBadRecords(t *testing.T) {
	for _, data := range []string{``, `{}`, `{"run_id":"../../etc"}`, `{"run_id":"` + testRun + `","members":["1"]}`, `{"run_id":"` + testRun + `","members":["0:5"]}`} {
		if _, err := parse([]byte(data)); err == nil {
			t.Errorf("parse(%q): no error, want one", data)
		}
	}
}

// The hand-written encoder reads back as encoding/json would have
// written it, odd strings included.
func TestEncodeRoundTrip(t *testing.T) {
	for _, args := range [][]string{nil, {}, {"nginx", "-g", "daemon off;"}, {"a\"b\\c", "\x00\x1f\n\t", "<&>", "\xff\xfe bad utf-8", "ünï", "\u2028"}} {
		rec := Record{RunID: testRun, Name: "n", Supervisor: procid.ID{PID: 3, StartTime: 4}, Watchdog: procid.ID{PID: 5, StartTime: 6}, Forwards: len(args)%2 == 1,
			Cgroup: "/sys/fs/cgroup/tether-" + testRun, Command: args, Stamp: []string{"TETHER=1"}, Members: []procid.ID{{PID: 7, StartTime: 8}}}
		got, err := parse(rec.encode())
		if err != nil {
			t.Fatalf("parse(encode(%q)): %v: %s", args, err, rec.encode())
		}
		want, _ := json.Marshal(rec)
		wantRec, _ := parse(want)
		if !reflect.DeepEqual(got, wantRec) {
			t.Errorf("encode(%q) reads back as %+v, encoding/json's as %+v", args, got, wantRec)
		}
	}
}

// age sets the directory's modification time back, as if nothing had
// changed it for a minute: the next Read may keep what it reads.
func age(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
}

// A Read after any write sees it, also when the reads before it were
// kept: every write changes the directory.
func TestReadSeesEveryWrite(t *testing.T) {
	dir := useDir(t)
	w, err := Create(Record{RunID: testRun, Members: []procid.ID{{PID: 11, StartTime: 6}}})
	if err != nil {
		t.Fatal(err)
	}
	age(t, dir)
	for i := 0; i < 2; i++ { // the second from what was kept
		if got := Read(os.Getuid()); len(got) != 1 || len(got[0].Members) != 1 {
			t.Fatalf("read %d: %+v, want the record with 1 member", i, got)
		}
	}
	w.Members([]procid.ID{{PID: 11, StartTime: 6}, {PID: 12, StartTime: 7}})
	if got := Read(os.Getuid()); len(got) != 1 || len(got[0].Members) != 2 {
		t.Fatalf("after Members: %+v, want 2 members", got)
	}
	age(t, dir)
	got := Read(os.Getuid())
	got[0].RunID = "changed by a caller"
	if again := Read(os.Getuid()); len(again) != 1 || again[0].RunID != testRun {
		t.Fatalf("a caller's change reached what was kept: %+v", again)
	}
	w.Remove()
	if got := Read(os.Getuid()); len(got) != 0 {
		t.Errorf("after Remove: %+v, want none", got)
	}
}

// Another user may fill their directory with records: a reader takes at
// most maxRecords of them and maxBytes in all, the smallest first, and
// at most maxMembers of a record's members. The caller's own directory,
// which only the caller writes, is read whole.
func TestReadBounded(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: records of another user")
	}
	const other = 65534
	base := t.TempDir()
	os.Chmod(base, 0o755)
	t.Setenv("TMPDIR", base)
	dir := filepath.Join(base, fmt.Sprintf("tether-%d", other))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(dir, id string, members, uid int) {
		ms := make([]string, members)
		for i := range ms {
			ms[i] = fmt.Sprintf("%d:%d", 100000+i, 1234567)
		}
		data, _ := json.Marshal(map[string]any{"run_id": id, "supervisor": "1:1", "command": []string{"x"}, "stamp": []string{"TETHER=1"}, "members": ms})
		path := filepath.Join(dir, id+".json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 8; i++ {
		write(dir, fmt.Sprintf("%032x", 0xb16+i), 50000, other) // about 0.8 MB each
	}
	for i := 0; i < 20; i++ {
		write(dir, fmt.Sprintf("%032x", 0x5a11+i), 3, other)
	}
	write(dir, strings.Repeat("f", 32), maxMembers+10, other)
	if err := os.Chown(dir, other, other); err != nil {
		t.Fatal(err)
	}
	got := Read(other)
	small, big := 0, 0
	for _, r := range got {
		switch {
		case len(r.Members) == 3:
			small++
		case len(r.Members) > maxMembers:
			t.Errorf("record %s: %d members, want at most %d", r.RunID, len(r.Members), maxMembers)
		default:
			big++
		}
	}
	if small != 20 || big >= 8 {
		t.Errorf("read %d small records and %d big ones; want all 20 small ones, and not every big one within %d bytes", small, big, maxBytes)
	}
	for i := 0; i < maxRecords; i++ {
		write(dir, fmt.Sprintf("%032x", 0xc0ffee00+i), 1, other)
	}
	if got := Read(other); len(got) != maxRecords {
		t.Errorf("read %d records, want at most %d", len(got), maxRecords)
	}

	own := useDir(t)
	if err := os.Mkdir(own, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < maxRecords+5; i++ {
		write(own, fmt.Sprintf("%032x", 0xd00d00+i), 1, os.Getuid())
	}
	write(own, strings.Repeat("e", 32), maxMembers+10, os.Getuid())
	got = Read(os.Getuid())
	if len(got) != maxRecords+6 {
		t.Errorf("read %d of the caller's own %d records, want every one", len(got), maxRecords+6)
	}
}
