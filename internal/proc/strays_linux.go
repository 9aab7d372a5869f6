//go:build linux

package proc

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
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
// known, when set, tells the processes the caller has found otherwise
// (its trees): they are not read again. Of the caller's own threads,
// threads names those that start its children (a Host's spawner thread):
// a child started with CLONE_PARENT by one of them is that thread's
// child. They are read beside the leader, which takes the orphans when
// the caller is a subreaper; with threads nil, every thread is read.
func (fs FS) Strays(since uint64, entries []string, key string, known func(Member) bool, threads []int) (matched []Valued, executing []int, full bool) {
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
	candidates, err := fs.adopted(since, threads)
	if err != nil {
		vs, executing := fs.scan(match)
		return vs, executing, true
	}
	buf := make([]byte, 4096)
	var roots []Valued
	for _, m := range candidates {
		if known != nil && known(m) {
			continue
		}
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
func (fs FS) adopted(since uint64, threads []int) ([]Member, error) {
	if !childrenLists {
		return nil, fmt.Errorf("no children lists")
	}
	adopters, err := fs.adopters()
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
		if i == 0 && threads != nil {
			kids, buf, err = fs.threadsChildren(a.PID, threads, buf)
		} else {
			kids, buf, err = fs.childrenOf(a, i == 0, buf)
		}
		if err != nil {
			return nil, err
		}
		for _, pid := range kids {
			if slices.ContainsFunc(adopters, func(s Stat) bool { return s.PID == pid }) {
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

// childrenOf is Children of a, with an error when a list cannot be read:
// a list left out would hide an orphan. An orphan is re-parented to the
// first live thread of its new parent, the leader while it runs: of an
// ancestor whose leader runs, the leader's list is read alone. Of the
// caller every thread's is, a child started with CLONE_PARENT by one of
// its children being the child of the thread that started that child.
func (fs FS) childrenOf(a Stat, self bool, buf []byte) ([]int, []byte, error) {
	base := fs.root + "/" + strconv.Itoa(a.PID) + "/task/"
	tasks := []int{a.PID}
	if self || a.Zombie() {
		var err error
		if tasks, err = numericEntries(base); err != nil {
			return nil, buf, err
		}
	}
	var out []int
	for _, tid := range tasks {
		var err error
		out, buf, err = readChildren(base+strconv.Itoa(tid)+"/children", out, buf)
		if err == nil {
			continue
		}
		st, serr := fs.Stat(tid)
		switch {
		case serr != nil && tid == a.PID && !self:
			continue // it ended: its children went further up the line
		case serr != nil:
			continue // the thread ended meanwhile
		case st.Zombie() && tid == a.PID && !a.Zombie():
			// The leader ended, its other threads run.
			return fs.childrenOf(st, false, buf)
		case st.Zombie():
			continue
		}
		return nil, buf, fmt.Errorf("children of %d: %w", a.PID, err)
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
