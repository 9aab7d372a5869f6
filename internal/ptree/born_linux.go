//go:build linux

package ptree

import (
	"sync/atomic"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// bornMost bounds the PIDs a search by birth reads: past it, more
// processes were made on the machine since the last search than a read
// of the ancestors' children lists would cost, and the caller falls back
// to that.
const bornMost = 1 << 14

// born lists the live processes whose PIDs were handed out after from
// and up to to (two values of LastPID, read in that order), started at
// or after since, leaving out, unread, the PIDs skip names. ok is false
// where the span cannot be trusted to hold them all: more PIDs than
// bornMost, or to unknown. Threads are listed too (a thread's id is a
// PID handed out); a caller that matches one tells it apart with Leader.
func born(fs proc.FS, from, to int, since uint64, skip func(pid int) bool) (ms []procid.ID, ok bool) {
	top := maxPIDFor(fs, from, to)
	if from < 0 || to < 0 || from > top || to > top {
		return nil, false
	}
	n := to - from
	if n < 0 { // wrapped past pid_max: the low PIDs are handed out again
		n += top
	}
	if n > bornMost {
		return nil, false
	}
	for i, pid := 0, from; i < n; i++ {
		if pid++; pid > top {
			pid = 1
		}
		if skip != nil && skip(pid) {
			continue
		}
		st, err := fs.Stat(pid)
		if err != nil || st.Zombie() || st.StartTime < since {
			continue
		}
		ms = append(ms, procid.ID{PID: pid, StartTime: st.StartTime})
	}
	return ms, true
}

// maxPID is the largest PID of the host's table as last read (0 before
// the first read): pid_max changes only by a root's sysctl, and a PID
// past the value read has it read again.
var maxPID atomic.Int64

// maxPIDFor is MaxPID, read again only where pids go past the value
// last read of the host's table.
func maxPIDFor(fs proc.FS, pids ...int) int {
	if fs != proc.Host() {
		return fs.MaxPID()
	}
	top := int(maxPID.Load())
	for _, pid := range pids {
		if pid > top {
			top = fs.MaxPID()
			maxPID.Store(int64(top))
			break
		}
	}
	return top
}

// StraysBorn is Strays for the processes born after from and up to to
// (two values of LastPID): of those, the ones whose environment holds
// one of entries, with their live descendants. Every process of a tree
// born since from that left it (an orphan re-parented up the line) is
// among them, whoever adopted it, so no children list but the matches'
// is read: the cost is the processes the machine made since from, not
// the children of the caller's ancestors. ok is false where the span
// cannot be searched so (see Born); the caller then searches with
// Strays.
func StraysBorn(fs proc.FS, from, to int, since uint64, entries []string, key string, known func(pid int) bool) (matched []Valued, executing []int, ok bool) {
	fresh, ok := born(fs, from, to, since, known)
	if !ok {
		return nil, nil, false
	}
	// A process born in the span that cannot be read has its own
	// children born in it too: they are read as they come.
	matched, executing = matchStrays(fs, fresh, entries, key, false)
	// A match's child born in the span is a match of its own too.
	out := matched[:0]
	seen := make(map[procid.ID]bool, len(matched))
	for _, v := range matched {
		if !seen[v.ID] && fs.Leader(v.PID) {
			seen[v.ID] = true
			out = append(out, v)
		}
	}
	return out, executing, true
}
