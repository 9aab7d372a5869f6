//go:build linux || darwin

package registry

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// Writer writes and removes one run's record, in the calling user's
// first directory. Every method of a nil Writer does nothing: a run
// whose directory was refused runs without a record.
type Writer struct {
	mu   sync.Mutex
	dir  string
	fd   int
	rec  Record
	last []byte
}

// Create opens the calling user's directory (making it where missing)
// and writes rec into it. On a refusal it returns the error, traced,
// and a nil Writer.
func Create(rec Record) (*Writer, error) {
	if !validRunID(rec.RunID) {
		return nil, fmt.Errorf("run records: bad run id %q", rec.RunID)
	}
	uid := os.Getuid()
	dir := writeDir(uid)
	fd, err := openDir(dir, uid, true)
	if err != nil {
		trace.Printf("%v: the run has no record", err)
		return nil, err
	}
	w := &Writer{dir: dir, fd: fd, rec: rec}
	if err := w.write(); err != nil {
		unix.Close(fd)
		trace.Printf("%v: the run has no record", err)
		return nil, err
	}
	return w, nil
}

// Path is the record's file; "" for nil.
func (w *Writer) Path() string {
	if w == nil {
		return ""
	}
	return filepath.Join(w.dir, fileName(w.rec.RunID))
}

// Members writes the run's tree down anew, when it changed.
func (w *Writer) Members(ms []procid.ID) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if slices.Equal(w.rec.Members, ms) {
		return
	}
	w.rec.Members = ms
	if err := w.write(); err != nil {
		trace.Printf("%v", err)
	}
}

// Watchdog writes the run's watchdog down anew: one that died was
// replaced.
func (w *Writer) Watchdog(id procid.ID) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rec.Watchdog = id
	if err := w.write(); err != nil {
		trace.Printf("%v", err)
	}
}

// write replaces the record whole: a new file, renamed over the old one,
// so that a reader sees one or the other. Unchanged, it is not written.
func (w *Writer) write() error {
	data := w.rec.encode()
	if string(data) == string(w.last) {
		return nil
	}
	name := fileName(w.rec.RunID)
	tmp := "." + name + ".new"
	fd, err := unix.Openat(w.fd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("run record %s: %w", filepath.Join(w.dir, tmp), err)
	}
	_, err = unix.Write(fd, data)
	unix.Close(fd)
	if err == nil {
		err = unix.Renameat(w.fd, tmp, w.fd, name)
	}
	if err != nil {
		_ = unix.Unlinkat(w.fd, tmp, 0)
		return fmt.Errorf("run record %s: %w", filepath.Join(w.dir, name), err)
	}
	w.last = data
	return nil
}

// Remove removes the record: its run has ended.
func (w *Writer) Remove() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return
	}
	_ = unix.Unlinkat(w.fd, fileName(w.rec.RunID), 0)
	unix.Close(w.fd)
	w.fd = -1
}

// Read reads every record of uid that can be trusted, from each of its
// directories; a directory that is missing has none, and one refused is
// traced and skipped.
func Read(uid int) []Record {
	var out []Record
	for _, dir := range Dirs(uid) {
		out = append(out, readDir(dir, uid)...)
	}
	return out
}

// ReadAll reads the records of every user whose directory this process
// can read: root's, and under /run/user and the temporary directory,
// each user's (for root with --any-user).
func ReadAll() []Record {
	out := Read(os.Getuid())
	seen := map[int]bool{os.Getuid(): true}
	for _, pattern := range []string{"/run/user/*/tether", filepath.Join(os.TempDir(), "tether-*")} {
		dirs, _ := filepath.Glob(pattern)
		for _, dir := range dirs {
			var st unix.Stat_t
			if unix.Lstat(dir, &st) != nil || seen[int(st.Uid)] {
				continue
			}
			seen[int(st.Uid)] = true
			out = append(out, Read(int(st.Uid))...)
		}
	}
	if !seen[0] {
		out = append(out, Read(0)...)
	}
	return out
}

// The bounds on what a reader takes from another user's directory:
// anyone can fill their own with records, and root's reclaim --any-user
// reads every user's (and probe reads root's beside a user's own). Past a
// bound the rest is skipped, with one traced line; the smallest records
// are read first, so that a user's ordinary runs (a few kilobytes each)
// are read before any giant. The caller's own directory, which only the
// caller writes, is read whole.
const (
	maxNames   = 8192    // directory entries looked at
	maxRecords = 512     // records read
	maxBytes   = 4 << 20 // bytes of records read, all together
	maxMembers = 16384   // members taken from one record
)

// readDir reads the records of uid's directory dir, within the bounds
// above; from the cache while the directory is unchanged.
func readDir(dir string, uid int) []Record {
	fd, err := openDir(dir, uid, false)
	if err != nil {
		if errors.Is(err, ErrRefused) {
			trace.Printf("%v", err)
		}
		return nil
	}
	d := os.NewFile(uintptr(fd), dir)
	defer d.Close()
	key, cacheable := stamp(fd)
	if recs, ok := cached(dir, uid, key); ok {
		return recs
	}
	bounded := uid != os.Getuid()
	n := -1
	if bounded {
		n = maxNames
	}
	names, _ := d.Readdirnames(n)
	if len(names) == maxNames && bounded {
		trace.Printf("run records: %s: only the first %d entries looked at", dir, maxNames)
	}
	type entry struct {
		name string
		size int64
	}
	var es []entry
	for _, name := range names {
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || !validRunID(id) {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		es = append(es, entry{name, st.Size})
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(a.size, b.size) })
	var out []Record
	var read int64
	for i, e := range es {
		if bounded && (i == maxRecords || read+min(e.size, maxRecord) > maxBytes) {
			trace.Printf("run records: %s: %d of %d read (at most %d, %d bytes); the rest skipped", dir, i, len(es), maxRecords, maxBytes)
			break
		}
		read += min(e.size, maxRecord)
		r, err := readRecord(fd, dir, e.name, uid)
		if err != nil {
			trace.Printf("%v", err)
			continue
		}
		out = append(out, r)
	}
	if cacheable {
		keep(dir, uid, key, out)
	}
	return out
}

// readRecord reads one record of dir, which must be a regular file of
// uid's, not a symlink, open to no one else.
func readRecord(dirfd int, dir, name string, uid int) (Record, error) {
	path := filepath.Join(dir, name)
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err == unix.ELOOP {
		return Record{}, fmt.Errorf("run record %s: a symlink: %w", path, ErrRefused)
	} else if err != nil {
		return Record{}, fmt.Errorf("run record %s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return Record{}, fmt.Errorf("run record %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != uid || st.Mode&0o077 != 0 {
		return Record{}, fmt.Errorf("run record %s: uid %d's, mode %o; want a file of uid %d's, open to no one else: %w", path, st.Uid, st.Mode, uid, ErrRefused)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxRecord))
	if err != nil {
		return Record{}, fmt.Errorf("run record %s: %w", path, err)
	}
	r, err := parse(data)
	if err != nil {
		return Record{}, fmt.Errorf("run record %s: %w", path, err)
	}
	if len(r.Members) > maxMembers && uid != os.Getuid() {
		trace.Printf("run record %s: %d members; the first %d taken", path, len(r.Members), maxMembers)
		r.Members = r.Members[:maxMembers]
	}
	if fileName(r.RunID) != name {
		return Record{}, fmt.Errorf("run record %s: holds run %s: %w", path, r.RunID, ErrRefused)
	}
	r.Owner = uid
	return r, nil
}

// Prune removes the record of run runID from uid's directories: its run
// is over (its supervisor gone, none of its members left).
func Prune(runID string, uid int) {
	if !validRunID(runID) {
		return
	}
	for _, dir := range Dirs(uid) {
		fd, err := openDir(dir, uid, false)
		if err != nil {
			continue
		}
		if unix.Unlinkat(fd, fileName(runID), 0) == nil {
			trace.Printf("run records: removed %s, its run is over", filepath.Join(dir, fileName(runID)))
		}
		unix.Close(fd)
	}
}

// maxRecord bounds what is read of a record: a run of a few thousand
// processes fits.
const maxRecord = 1 << 20

// parse reads one record, checking that it names a run.
func parse(data []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("parse record: %w", err)
	}
	if !validRunID(r.RunID) {
		return r, fmt.Errorf("parse record: bad run id %q", r.RunID)
	}
	return r, nil
}

// validRunID is the protocol's run id (marker.IsRunID), also a safe file
// name.
func validRunID(id string) bool { return marker.IsRunID(id) }

// fileName is the record of run runID.
func fileName(runID string) string { return runID + ".json" }
