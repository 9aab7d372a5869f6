package spawn

import (
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/probe"
)

// member is a process of the supervised tree, named exactly.
type member struct {
	pid   int
	start uint64
}

// children lists the children of every thread of pid. Each thread keeps
// its own list (/proc/PID/task/TID/children): a child belongs to the
// thread that forked it.
func children(pid int) []int {
	base := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(base)
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		data, err := os.ReadFile(base + "/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(data)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// subtree lists the live (non-zombie) descendants of root, leaving out
// skip and its own descendants. As a child subreaper, tether stays an
// ancestor of everything its command starts, setsid and double forks
// included, so its subtree is the whole tree and no scan of all of /proc
// is needed. A children list names processes, never threads, so the stat
// file alone says enough about each.
func subtree(root, skip int) []member {
	var out []member
	queue := children(root)
	seen := map[int]bool{skip: true}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		st, err := probe.ReadStat(pid)
		if err != nil {
			continue
		}
		if !st.Zombie() {
			out = append(out, member{pid: pid, start: st.Start})
		}
		queue = append(queue, children(pid)...)
	}
	return out
}

// signalMember signals m through a pidfd opened before its start time is
// checked again, so that a PID recycled since the walk (a grandchild
// reaped by its own parent) is never signalled. It reports whether the
// signal was sent.
func signalMember(m member, sig syscall.Signal) bool {
	fd, err := unix.PidfdOpen(m.pid, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	st, err := probe.ReadStat(m.pid)
	if err != nil || st.Start != m.start {
		return false
	}
	return unix.PidfdSendSignal(fd, sig, nil, 0) == nil
}
