//go:build linux

package ptree

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// Strays finds the processes whose environment holds any one of entries
// and that left the trees of the caller's children: each with the value
// of variable key in its environment, and with its live descendants
// (which carry the same value). A process whose parent exits is
// re-parented to its nearest ancestor that is a child subreaper, or to
// its namespace's init; for an orphan of a tree the caller started, that
// ancestor is the caller or one of the caller's own ancestors. So only
// their children are read (of the caller, those of its leader and of
// threads), and only those started at or after since (the oldest tree's
// start time) have their environment read; of one whose environment
// cannot be read (not dumpable), the descendants are. The cost is the
// children of the caller's line of ancestors, init's among them, not the
// processes of the machine.
//
// Where an ancestor or its children cannot be read (hidden by hidepid,
// another user's, a read that fails for want of memory or descriptors, or
// no children lists), Strays scans every process's environment instead
// and says so with full: a list left out would hide an orphan. A process found in the
// middle of an execve, which cannot be told yet, is in executing, as
// with Scan.
//
// known, when set, tells the PIDs of the processes the caller has just
// found otherwise (its trees): they are not read again. Of the caller's own threads,
// threads names those that start its children (a Host's spawner thread):
// a child started with CLONE_PARENT by one of them is that thread's
// child. They are read beside the leader, which takes the orphans when
// the caller is a subreaper; with threads nil, every thread is read.
func Strays(fs proc.FS, since uint64, entries []string, key string, known func(pid int) bool, threads []int) (matched []Valued, executing []int, full bool) {
	candidates, err := adopted(fs, since, threads, known)
	if err != nil {
		vs, executing := scan(fs, entriesMatch(entries, key))
		return vs, executing, true
	}
	matched, executing = matchStrays(fs, candidates, entries, key, true)
	return matched, executing, false
}

// entriesMatch matches an environment that holds any one of entries,
// giving the value of variable key in it.
func entriesMatch(entries []string, key string) func(env []byte) (string, bool) {
	want := make([][]byte, len(entries))
	for i, e := range entries {
		want[i] = []byte(e)
	}
	prefix := []byte(key + "=")
	return func(env []byte) (string, bool) {
		for _, w := range want {
			if proc.HasEntries(env, [][]byte{w}) {
				return proc.EnvValue(env, prefix), true
			}
		}
		return "", false
	}
}

// matchStrays reads the environment of each candidate and returns those
// that hold one of entries, each with its live descendants. With
// descend, the descendants of a candidate whose environment cannot be
// read (not dumpable) are candidates too: they may carry the entries
// all the same.
func matchStrays(fs proc.FS, candidates []procid.ID, entries []string, key string, descend bool) (matched []Valued, executing []int) {
	match := entriesMatch(entries, key)
	buf := make([]byte, 4096)
	var roots []Valued
	seen := map[int]bool{}
	for i := 0; i < len(candidates); i++ {
		m := candidates[i]
		if seen[m.PID] {
			continue
		}
		seen[m.PID] = true
		env, midExec, err := fs.EnvironInto(m.PID, buf)
		buf = env
		if midExec {
			executing = append(executing, m.PID)
			continue
		}
		if err != nil {
			if descend && !gone(err) {
				candidates = append(candidates, Subtree(fs, m.PID, 0)...)
			}
			continue
		}
		if value, ok := match(env); ok && Alive(fs, m) {
			roots = append(roots, Valued{m, value})
		}
	}
	matched = roots
	for _, r := range roots {
		for _, d := range Subtree(fs, r.PID, 0) {
			matched = append(matched, Valued{d, r.Value})
		}
	}
	return matched, executing
}

// adopted lists the live children, started at or after since, of the
// caller and of each of its ancestors up to its namespace's init (the
// ancestors themselves left out): where an orphan of the caller's
// descendants is re-parented to. An error says that one of them could
// not be listed.
func adopted(fs proc.FS, since uint64, threads []int, known func(pid int) bool) ([]procid.ID, error) {
	if !childrenLists {
		return nil, fmt.Errorf("no children lists")
	}
	adopters, err := line(fs)
	if err != nil {
		return nil, err
	}
	ancestor := func(st proc.Stat) bool {
		return slices.ContainsFunc(adopters, func(a proc.Stat) bool { return a.PID == st.PID && a.StartTime == st.StartTime })
	}
	var out []procid.ID
	var ended []proc.Stat
	buf := make([]byte, 0, 4096)
	// Nearest first: an orphan only ever moves up the line (its
	// subreaper exits), so one that moves while the line is read is
	// found further up.
	for i, a := range adopters {
		var ls []childList
		var over bool
		if i == 0 {
			ls, buf, err = ownChildren(fs, a.PID, threads, buf)
		} else {
			ls, over, buf, err = ancestorsChildren(fs, a, buf)
		}
		if err != nil {
			return nil, err
		}
		if over {
			ended = append(ended, a)
		}
		for _, l := range ls {
			for _, m := range listed(fs, listKey{owner: a, tid: l.tid}, l.pids) {
				if (known == nil || !known(m.PID)) && m.StartTime >= since && !ancestor(proc.Stat{PID: m.PID, StartTime: m.StartTime}) {
					out = append(out, m)
				}
			}
		}
	}
	forget(fs, ended)
	return out, nil
}

// listKey names a children list the caller reads again and again: its
// owner (the caller or one of its ancestors) and the owner's thread.
type listKey struct {
	owner proc.Stat
	tid   int
}

// childList is the children list of one thread, as read.
type childList struct {
	tid  int
	pids []int
}

// lists keeps, of each children list read, its children as last read,
// in order, each with its start time.
var lists = struct {
	sync.Mutex
	byKey map[listKey][]procid.ID
}{byKey: map[listKey][]procid.ID{}}

// listed gives the children pids of one list, as read now, with their
// start times. A list keeps its order: a child forked or re-parented to
// its owner is put at its end, and one that goes leaves the others in
// order. So the children still there from the last read come first, in
// the order they had, and the rest are new: where the last of the old
// ones is found by its start time to be the same process as before, the
// ones before it are too, and only the rest is read. Among thousands of
// init's children, a search reads the few that came since the last one,
// and a handful of stat files to find where they begin.
func listed(fs proc.FS, key listKey, pids []int) []procid.ID {
	lists.Lock()
	prev := lists.byKey[key]
	lists.Unlock()
	// The children matched, in order, to the last read: pos[m] in pids,
	// at[m] in prev.
	var pos, at []int
	for i, j := 0, 0; i < len(pids) && j < len(prev); i++ {
		k := j
		for k < len(prev) && prev[k].PID != pids[i] {
			k++
		}
		if k == len(prev) {
			break
		}
		pos, at = append(pos, i), append(at, k)
		j = k + 1
	}
	// The first matched one that is not the process it was (a PID
	// freed and taken again) begins the new ones.
	same := sort.Search(len(pos), func(m int) bool {
		st, err := fs.Stat(pids[pos[m]])
		return err != nil || st.StartTime != prev[at[m]].StartTime
	})
	out := make([]procid.ID, 0, len(pids))
	for m := 0; m < same; m++ {
		out = append(out, prev[at[m]])
	}
	rest := 0
	if same > 0 {
		rest = pos[same-1] + 1
	}
	for _, pid := range pids[rest:] {
		if st, err := fs.Stat(pid); err == nil && !st.Zombie() {
			out = append(out, procid.ID{PID: pid, StartTime: st.StartTime})
		}
	}
	lists.Lock()
	lists.byKey[key] = out
	lists.Unlock()
	return out
}

// lines keeps the caller's line of ancestors, per table, once read: the
// line only ever loses members. An ancestor that exits hands its
// children (the caller's parent among them) up the line, to its nearest
// subreaper ancestor or to init, which are in it already; and no process
// becomes the caller's ancestor otherwise.
var lines = struct {
	sync.Mutex
	byRoot map[string][]proc.Stat
}{byRoot: map[string][]proc.Stat{}}

// line is the caller's line, the caller first, read once.
func line(fs proc.FS) ([]proc.Stat, error) {
	lines.Lock()
	defer lines.Unlock()
	if l, ok := lines.byRoot[fs.Root()]; ok {
		return l, nil
	}
	l, err := adopters(fs)
	if err == nil {
		lines.byRoot[fs.Root()] = l
	}
	return l, err
}

// forget takes ancestors that ended out of the line.
func forget(fs proc.FS, ended []proc.Stat) {
	if len(ended) == 0 {
		return
	}
	lines.Lock()
	defer lines.Unlock()
	lines.byRoot[fs.Root()] = slices.DeleteFunc(slices.Clone(lines.byRoot[fs.Root()]), func(a proc.Stat) bool {
		return slices.Contains(ended, a)
	})
	lists.Lock()
	defer lists.Unlock()
	for key := range lists.byKey {
		if slices.Contains(ended, key.owner) {
			delete(lists.byKey, key)
		}
	}
}

// adopters lists the caller and its ancestors, nearest first, up to the
// first whose parent is outside the table (its namespace's init).
func adopters(fs proc.FS) ([]proc.Stat, error) {
	self := os.Getpid()
	var out []proc.Stat
	for pid := self; ; {
		st, err := fs.Stat(pid)
		if err != nil {
			return nil, fmt.Errorf("ancestors of %d: %w", self, err)
		}
		out = append(out, st)
		if st.PPID <= 0 || len(out) > 1024 || slices.ContainsFunc(out, func(s proc.Stat) bool { return s.PID == st.PPID }) {
			return out, nil
		}
		pid = st.PPID
	}
}

// pfExiting is the kernel's PF_EXITING flag: the thread is exiting.
const pfExiting = 0x4

// ancestorsChildren lists the children of an ancestor of the caller, or
// reports it over (gone, or its PID another's). An orphan is re-parented
// to the first thread of its new parent that is not exiting, the leader
// while it runs: the leader's list is read alone, every thread's once
// the leader is exiting or gone.
func ancestorsChildren(fs proc.FS, a proc.Stat, buf []byte) (ls []childList, over bool, _ []byte, _ error) {
	st, err := fs.Stat(a.PID)
	switch {
	case gone(err) || err == nil && st.StartTime != a.StartTime:
		return nil, true, buf, nil // its children went further up the line
	case err != nil:
		return nil, false, buf, fmt.Errorf("ancestor %d: %w", a.PID, err)
	case !st.Zombie() && st.Flags&pfExiting == 0:
		var kids []int
		kids, buf, err = proc.ReadChildren(fs.Path(a.PID, "task/"+strconv.Itoa(a.PID)+"/children"), nil, buf)
		if err == nil {
			return []childList{{a.PID, kids}}, false, buf, nil
		}
		if !gone(err) {
			return nil, false, buf, fmt.Errorf("children of %d: %w", a.PID, err)
		}
		// The leader ended meanwhile: its other threads took them.
	}
	ls, buf, err = threadLists(fs, a.PID, buf)
	return ls, false, buf, err
}

// ownChildren lists the children of the caller (pid): of its leader,
// which takes the orphans when the caller is a subreaper, and of its
// threads tids (those that start its children), or of every thread with
// tids nil.
func ownChildren(fs proc.FS, pid int, tids []int, buf []byte) ([]childList, []byte, error) {
	if tids == nil {
		return threadLists(fs, pid, buf)
	}
	base := fs.Root() + "/" + strconv.Itoa(pid) + "/task/"
	var ls []childList
	for i, tid := range append([]int{pid}, tids...) {
		if i > 0 && tid == pid {
			continue // the leader, read already
		}
		kids, b, err := proc.ReadChildren(base+strconv.Itoa(tid)+"/children", nil, buf)
		buf = b
		if err != nil {
			return nil, buf, fmt.Errorf("children of %d: %w", tid, err)
		}
		ls = append(ls, childList{tid, kids})
	}
	return ls, buf, nil
}

// gone reports whether err says that a process or thread no longer
// exists.
func gone(err error) bool {
	return errors.Is(err, proc.ErrGone) || errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ESRCH)
}
