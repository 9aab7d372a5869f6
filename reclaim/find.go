package reclaim

import (
	"os"
	"slices"
	"sort"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/probe"
)

// Process is one process found: a tethered process, or any holder of a
// port that was asked about.
type Process struct {
	probe.Report
	// Ports are the listeners it holds: of the ports asked about, or all
	// of them when listing.
	Ports []Listener `json:"ports,omitempty"`
	// Protected says why it is never signalled: PID 1, tether itself or
	// one of its ancestors.
	Protected string `json:"protected,omitempty"`
	// identity tells this process apart from any later holder of its PID
	// where the kernel can (pidfs inode numbers); 0 elsewhere.
	identity uint64
	// ofRun says it was found as a member of a run selected whole: as
	// root, it is ended with its run whoever's it is (nginx's workers).
	ofRun bool
	// through says it is to be ended through its supervisor, decided
	// once (wholeRuns) for the widening of its run and its signal alike.
	through bool
}

// found is one pass of finding: the processes, freshly checked, and with
// ports asked about, what serves each port.
type found struct {
	procs []Process
	ports []PortState
	// holders are who held each port's sockets, to carry the port
	// states past a reclaim.
	holders []holder
}

// find returns the processes f is about, each freshly checked, by PID:
// the tethered ones that match the markers and name; with Ports, every
// holder of those ports instead, tethered or not, so that a caller can
// say who holds a port it will not touch.
func find(f Filter) (found, error) {
	if err := f.Validate(); err != nil {
		return found{}, err
	}
	// What is found is signalled by the PIDs /proc shows.
	if err := proc.Host().CheckOwn(); err != nil {
		return found{}, err
	}
	f.Ports = unique(f.Ports)
	var out found
	var pids []int
	held := map[int][]Listener{}
	if len(f.Ports) > 0 {
		ls, hs, err := lookupPorts(f.Ports)
		if err != nil {
			return found{}, err
		}
		out.ports, out.holders = portStates(f.Ports, ls, hs), hs
		traceStates(out.ports)
		for _, h := range hs {
			if _, ok := held[h.pid]; !ok {
				pids = append(pids, h.pid)
			}
			held[h.pid] = append(held[h.pid], h.listener)
		}
	} else {
		pids = scan(f)
	}
	protected := protectedPIDs()
	for _, pid := range pids {
		// Taken before the check, so that the check describes the
		// process the identity names (or sees a different start time).
		id := proc.Host().Identity(pid)
		r, err := probe.Check(pid, f.query())
		if err != nil {
			return found{}, err
		}
		p := Process{Report: r, Ports: held[pid], Protected: protected[pid], identity: id}
		if reason, _ := f.matches(p); reason != "" && len(f.Ports) == 0 {
			// Changed since the scan, another run or another user's: a
			// port's holders are all reported, a scan's only its own.
			continue
		}
		out.procs = append(out.procs, p)
	}
	sort.Slice(out.procs, func(i, j int) bool { return out.procs[i].PID < out.procs[j].PID })
	return out, nil
}

// scan is the first pass over every process's environment: the PIDs
// that carry the markers (and the name), each to be checked whole.
func scan(f Filter) []int {
	var pids []int
	ms, executing := proc.Host().Scan(f.Markers.Entries(f.Name))
	for _, m := range ms {
		// Another user's process is left out before the full check:
		// one read of its status instead of five.
		if st, err := proc.Host().Status(m.PID); err == nil && !f.AnyUser && st.UID != os.Getuid() {
			trace.Printf("scan: %d left out: another user's (uid %d)", m.PID, st.UID)
			continue
		}
		pids = append(pids, m.PID)
	}
	// Each one in the middle of an execve may be one of them:
	// probe.Check waits it out.
	trace.Printf("scan for %q: %d matched, %d in the middle of an execve", f.Markers.Entries(f.Name), len(ms), len(executing))
	pids = append(append(pids, executing...), contained(pids)...)
	return append(pids, recorded(f, pids)...)
}

func traceStates(states []PortState) {
	for _, st := range states {
		switch {
		case st.Free:
			trace.Printf("port %d: free", st.Port)
		case len(st.Hidden) > 0:
			trace.Printf("port %d: held by %v and by processes of uid %v out of sight", st.Port, st.Holders, st.Hidden)
		default:
			trace.Printf("port %d: held by %v", st.Port, st.Holders)
		}
	}
}

// protectedPIDs are never signalled: PID 1, this process and its
// ancestors (killing the shell that runs tether reclaim helps no one).
func protectedPIDs() map[int]string {
	prot := map[int]string{1: "PID 1 is never signalled"}
	prot[os.Getpid()] = "tether itself"
	for pid, n := os.Getppid(), 0; pid > 1 && n < 4096; n++ {
		prot[pid] = "an ancestor of tether"
		p, err := proc.Host().Process(pid)
		if err != nil {
			break
		}
		pid = p.PPID
	}
	return prot
}

// unique keeps the first of each port: one given twice is asked about once.
func unique(ports []uint16) []uint16 {
	var out []uint16
	for _, p := range ports {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
