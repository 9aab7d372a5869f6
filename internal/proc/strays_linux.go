//go:build linux

package proc

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
)

// Strays finds the processes whose environment holds any one of entries
// and that left the trees of the caller's children: each with the value
// of variable key in its environment, and with its live descendants
// (which carry the same value). A process whose parent exits is
// re-parented to its nearest ancestor that is a child subreaper, or to
// its namespace's init; for an orphan of a tree the caller started, that
// ancestor is the caller or one of the caller's own ancestors. So only
// their children are read, and only those started at or after since (the
// oldest tree's start time) have their environment read: the cost is the
// children of the caller's ancestors, not the processes of the machine.
//
// Where an ancestor's children cannot be listed (another user's, hidden
// by hidepid, or no children lists), Strays scans every process's
// environment instead and says so with full. A process found in the
// middle of an execve, which cannot be told yet, is in executing, as
// with Scan.
//
// known, when set, tells the PIDs of the processes the caller has just
// found otherwise (its trees): they are not read again. Of the caller's own threads,
// threads names those that start its children (a Host's spawner thread):
// a child started with CLONE_PARENT by one of them is that thread's
// child. They are read beside the leader, which takes the orphans when
// the caller is a subreaper; with threads nil, every thread is read.
func (fs FS) Strays(since uint64, entries []string, key string, known func(pid int) bool, threads []int) (matched []Valued, executing []int, full bool) {
	want := make([][]byte, len(entries))
	for i, e := range entries {
		want[i] = []byte(e)
	}
	prefix := []byte(key + "=")
	match := func(env []byte) (string, bool) {
		for _, w := range want {
			if HasEntries(env, [][]byte{w}) {
				return EnvValue(env, prefix), true
			}
		}
		return "", false
	}
	candidates, err := fs.adopted(since, threads, known)
	if err != nil {
		vs, executing := fs.scan(match)
		return vs, executing, true
	}
	buf := make([]byte, 4096)
	var roots []Valued
	for _, m := range candidates {
		env, err := readInto(fs.Path(m.PID, "environ"), buf)
		buf = env
		switch {
		case err != nil:
			continue
		case len(env) == 0 && fs.Executing(m.PID) && fs.youngPID(m.PID):
			executing = append(executing, m.PID)
			continue
		}
		if value, ok := match(env); ok && fs.Alive(m) {
			roots = append(roots, Valued{m, value})
		}
	}
	matched = roots
	for _, r := range roots {
		for _, d := range fs.Subtree(r.PID, 0) {
			matched = append(matched, Valued{d, r.Value})
		}
	}
	return matched, executing, false
}

// adopted lists the live children, started at or after since, of the
// caller and of each of its ancestors up to its namespace's init (the
// ancestors themselves left out): where an orphan of the caller's
// descendants is re-parented to. An error says that one of them could
// not be listed.
func (fs FS) adopted(since uint64, threads []int, known func(pid int) bool) ([]Member, error) {
	if !childrenLists {
		return nil, fmt.Errorf("no children lists")
	}
	adopters, err := fs.line()
	if err != nil {
		return nil, err
	}
	var out []Member
	buf := make([]byte, 0, 4096)
	// Nearest first: an orphan only ever moves up the line (its
	// subreaper exits), so one that moves while the line is read is
	// found further up.
	for i, a := range adopters {
		var kids []int
		switch {
		case i == 0 && threads != nil:
			kids, buf, err = fs.threadsChildren(a.PID, threads, buf)
		case i == 0:
			kids, buf, err = fs.childrenOf(a.PID, true, buf)
		default:
			kids, buf, err = fs.ancestorsChildren(a, buf)
		}
		if err != nil {
			return nil, err
		}
		for _, pid := range kids {
			if (known != nil && known(pid)) || slices.ContainsFunc(adopters, func(s Stat) bool { return s.PID == pid }) {
				continue
			}
			st, err := fs.Stat(pid)
			if err == nil && !st.Zombie() && st.StartTime >= since {
				out = append(out, Member{PID: pid, StartTime: st.StartTime})
			}
		}
	}
	return out, nil
}

// lines keeps the caller's line of ancestors, per table, once read: the
// line only ever loses members. An ancestor that exits hands its
// children (the caller's parent among them) up the line, to its nearest
// subreaper ancestor or to init, which are in it already; and no process
// becomes the caller's ancestor otherwise.
var lines = struct {
	sync.Mutex
	byRoot map[string][]Stat
}{byRoot: map[string][]Stat{}}

// line is the caller's line, the caller first, read once.
func (fs FS) line() ([]Stat, error) {
	lines.Lock()
	defer lines.Unlock()
	if l, ok := lines.byRoot[fs.root]; ok {
		return l, nil
	}
	l, err := fs.adopters()
	if err == nil {
		lines.byRoot[fs.root] = l
	}
	return l, err
}

// adopters lists the caller and its ancestors, nearest first, up to the
// first whose parent is outside the table (its namespace's init).
func (fs FS) adopters() ([]Stat, error) {
	self := os.Getpid()
	var out []Stat
	for pid := self; ; {
		st, err := fs.Stat(pid)
		if err != nil {
			return nil, fmt.Errorf("ancestors of %d: %w", self, err)
		}
		out = append(out, st)
		if st.PPID <= 0 || len(out) > 1024 || slices.ContainsFunc(out, func(s Stat) bool { return s.PID == st.PPID }) {
			return out, nil
		}
		pid = st.PPID
	}
}

// ancestorsChildren lists the children of an ancestor of the caller. An
// orphan is re-parented to the first live thread of its new parent, the
// leader while it runs: the leader's list is read alone. Every ancestor
// has a child (the next one down the line), so an empty list says that
// it ended (its children went further up the line) or that its leader
// did, and its other threads run: then each thread's is read.
func (fs FS) ancestorsChildren(a Stat, buf []byte) ([]int, []byte, error) {
	kids, buf, err := readChildren(fs.Path(a.PID, "task/"+strconv.Itoa(a.PID)+"/children"), nil, buf)
	if err == nil && len(kids) > 0 {
		return kids, buf, nil
	}
	st, serr := fs.Stat(a.PID)
	if serr != nil || st.StartTime != a.StartTime {
		return nil, buf, nil // it ended
	}
	if !st.Zombie() {
		if err != nil {
			return nil, buf, fmt.Errorf("children of %d: %w", a.PID, err)
		}
		return kids, buf, nil
	}
	return fs.childrenOf(a.PID, false, buf)
}

// childrenOf lists the children of every thread of pid, with an error
// when a live thread's list cannot be read: a list left out would hide
// an orphan.
func (fs FS) childrenOf(pid int, self bool, buf []byte) ([]int, []byte, error) {
	base := fs.root + "/" + strconv.Itoa(pid) + "/task/"
	tasks, err := numericEntries(base)
	if err != nil {
		if !self {
			return nil, buf, nil // it ended meanwhile
		}
		return nil, buf, err
	}
	var out []int
	for _, tid := range tasks {
		var err error
		out, buf, err = readChildren(base+strconv.Itoa(tid)+"/children", out, buf)
		if err == nil {
			continue
		}
		if st, serr := fs.Stat(tid); serr != nil || st.Zombie() {
			continue // the thread ended meanwhile
		}
		return nil, buf, fmt.Errorf("children of %d: %w", pid, err)
	}
	return out, buf, nil
}

// threadsChildren lists the children of the leader of pid and of its
// threads tids (the caller's own: each runs while the caller does).
func (fs FS) threadsChildren(pid int, tids []int, buf []byte) ([]int, []byte, error) {
	base := fs.root + "/" + strconv.Itoa(pid) + "/task/"
	var out []int
	for _, tid := range append([]int{pid}, tids...) {
		var err error
		if out, buf, err = readChildren(base+strconv.Itoa(tid)+"/children", out, buf); err != nil {
			return nil, buf, fmt.Errorf("children of %d: %w", tid, err)
		}
	}
	return out, buf, nil
}

// readChildren appends the PIDs of a children list to out. A list longer
// than one read (a page) is read afresh on each read, and a child that
// exits between two reads shifts the rest, which may skip one: such a
// list is read twice.
func readChildren(path string, out []int, buf []byte) ([]int, []byte, error) {
	n := len(out)
	for pass := 0; pass < 2; pass++ {
		data, err := readInto(path, buf)
		buf = data
		if err != nil {
			return out, buf, err
		}
		for _, f := range bytes.Fields(data) {
			if c, err := strconv.Atoi(string(f)); err == nil && (pass == 0 || !slices.Contains(out[n:], c)) {
				out = append(out, c)
			}
		}
		if len(data) < 4000 {
			break
		}
	}
	return out, buf, nil
}
