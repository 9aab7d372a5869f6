//go:build linux || darwin

package registry

import (
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A reader asks for the same user's records more than once in a call
// (check of each renamed process, reclaim's find, whole runs and
// prune): each directory is parsed once while it is unchanged. A record
// is written by renaming a new file over the old one, and removed by
// unlinking it, both of which change the directory's modification time;
// so an unchanged time is an unchanged directory, with one caveat the
// cache keeps clear of: the kernel stamps that time from a clock that
// moves in ticks of a few milliseconds, and a change within the same
// tick as the read would leave it as it was. A directory changed less
// than settle before it is read is read again next time.
const settle = 100 * time.Millisecond

// dirKey is a directory as it was read: which one, and when it last
// changed.
type dirKey struct {
	dev, ino uint64
	mtime    unix.Timespec
}

type cacheEntry struct {
	key  dirKey
	recs []Record
}

var cache = struct {
	sync.Mutex
	byDir map[cacheSlot]cacheEntry
}{byDir: map[cacheSlot]cacheEntry{}}

type cacheSlot struct {
	dir string
	uid int
}

// stamp is the key of the open directory fd, and whether its records may
// be kept: it last changed long enough ago.
func stamp(fd int) (dirKey, bool) {
	now := time.Now()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return dirKey{}, false
	}
	k := dirKey{dev: uint64(st.Dev), ino: uint64(st.Ino), mtime: st.Mtim}
	changed := time.Unix(st.Mtim.Unix())
	if st.Mtim.Nsec == 0 {
		// Most likely a file system that keeps whole seconds (ext3,
		// HFS+, some NFS): a change within the same second as the read
		// would leave the time as it was.
		return k, now.Sub(changed) >= 2*time.Second
	}
	return k, now.Sub(changed) >= settle
}

// cached are the records of dir kept when it was last read, if it has
// not changed since.
func cached(dir string, uid int, k dirKey) ([]Record, bool) {
	cache.Lock()
	defer cache.Unlock()
	e, ok := cache.byDir[cacheSlot{dir, uid}]
	if !ok || e.key != k {
		return nil, false
	}
	// A copy: callers filter their slice in place.
	return slices.Clone(e.recs), true
}

// keep keeps the records read from dir.
func keep(dir string, uid int, k dirKey, recs []Record) {
	cache.Lock()
	defer cache.Unlock()
	cache.byDir[cacheSlot{dir, uid}] = cacheEntry{key: k, recs: slices.Clone(recs)}
}
