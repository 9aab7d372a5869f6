package reclaim

import (
	"os"
	"slices"
	"sort"
	"sync"

	"github.com/tetherproc/tether/internal/engines"
	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/sockets"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/procid"
)

// snapshot is what one reclaim or listing looks at, taken once before
// anything is decided: the processes its filter is about, each checked;
// the run records it may read; with ports, what serves each port; the
// processes never signalled; and the marked processes of every run, by
// run id, so that a run can be made whole without looking again.
type snapshot struct {
	procs     []Process
	records   *runRecords
	protected map[int]Protection
	// runs are the processes carrying the markers (any user's, any
	// state), by the run id in their environment. With ports asked
	// about they are scanned for (runEntries) only once a run is to be
	// made whole: most lookups of a port select no run (a foreign
	// holder, a run whose tether is alive), and the scan reads every
	// process's environment.
	runs       map[string][]procid.ID
	runEntries []string
	// ports and holders, with ports asked about: what serves each port,
	// and who held each port's sockets, to carry the states past a
	// reclaim.
	ports   []PortState
	holders []sockets.Holder
	// handles hold the processes checked, by PID, from before their
	// check to their signal, when the snapshot is taken to signal: the
	// check and the signal are then about one process, and what is
	// confirmed before the signal is what selected it, not the whole of
	// it again. nil for a listing or a dry run.
	handles map[int]*pidfd.Handle
}

// take takes the snapshot of f: the processes f is about, each freshly
// checked, by PID: the tethered ones that match the markers and name;
// with Ports, every holder of those ports instead, tethered or not, so
// that a caller can say who holds a port it will not touch. With runs,
// the marked processes of the runs found are taken too.
func take(f Filter, runs, hold bool) (*snapshot, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	// What is found is signalled by the PIDs /proc shows.
	if err := proc.Host().CheckOwn(); err != nil {
		return nil, err
	}
	f.Ports = sockets.Unique(f.Ports)
	s := &snapshot{records: readRecords(f), protected: kill.Protected(proc.Host())}
	if hold {
		s.handles = map[int]*pidfd.Handle{}
	}
	var pids []int
	held := map[int][]Listener{}
	if len(f.Ports) > 0 {
		var err error
		if pids, held, err = s.lookPorts(f.Ports, f.Proto); err != nil {
			return nil, err
		}
	} else {
		pids = s.scan(f)
	}
	for _, pid := range pids {
		p, err := s.check(pid, f)
		if err != nil {
			s.close()
			return nil, err
		}
		p.Ports = held[pid]
		if foreignHolder(p) {
			// The engine is asked only here: only for a holder that is
			// a container's.
			p.Manager = engines.OfRead(pid, engines.Read{PPID: p.PPID, Argv: p.Command, Cgroup: p.Cgroup})
		}
		if reason := f.matches(p); reason != "" && len(f.Ports) == 0 {
			// Changed since the scan, another run or another user's: a
			// port's holders are all reported, a scan's only its own.
			if h := s.handle(pid); h != nil {
				h.Close()
			}
			continue
		}
		s.procs = append(s.procs, p)
	}
	sort.Slice(s.procs, func(i, j int) bool { return s.procs[i].PID < s.procs[j].PID })
	if runs && s.runs == nil && slices.ContainsFunc(s.procs, func(p Process) bool { return p.RunID != "" }) {
		// The holders of a port are known by their sockets: their runs'
		// other members by their run id, in one scan, once a run is
		// selected whole (runsOf).
		s.runEntries = f.Markers.Entries(f.Name)
	}
	return s, nil
}

// runsOf is the marked processes of run id, from the one scan of every
// process that finds a port's holders' runs, made the first time a run
// is to be made whole, before anything is signalled.
func (s *snapshot) runsOf(id string) []procid.ID {
	if s.runs == nil && s.runEntries != nil {
		ms, _ := ptree.ScanValues(proc.Host(), s.runEntries, marker.RunIDVar)
		s.runs = byRun(ms)
	}
	return s.runs[id]
}

// check checks pid under f's markers and name. When the snapshot holds
// handles, pid's is opened before the check, so that the check describes
// the process the handle holds, or the handle shows it gone since
// (held). A process no handle could be had for is opened again before
// its signal and checked whole then.
func (s *snapshot) check(pid int, f Filter) (Process, error) {
	var h *pidfd.Handle
	if s.handles != nil && len(s.handles) < maxHeld() {
		h, _ = pidfd.Open(proc.Host(), pid)
	}
	r, err := probe.Check(pid, f.query())
	if h != nil {
		s.handles[pid] = h
	}
	return Process{Report: r, Protected: s.protected[pid]}, err
}

// maxHeld bounds the handles a snapshot holds at once: each is a
// descriptor, and a machine with thousands of tethered processes would
// otherwise leave none for reading /proc. A quarter of the limit of open
// files (which Go raises to the hard limit as it starts), at least 64. A
// process checked past it is opened before its signal and checked whole
// again then, as one no handle could be had for is. Read at the first
// hold, not as tether starts: a tether run never holds one.
var maxHeld = sync.OnceValue(heldBound)

// handle hands over the handle that holds pid since its check: nil when
// there is none. The caller closes it.
func (s *snapshot) handle(pid int) *pidfd.Handle {
	h := s.handles[pid]
	delete(s.handles, pid)
	return h
}

// close closes the handles not handed over: of the processes that were
// not signalled.
func (s *snapshot) close() {
	for pid, h := range s.handles {
		h.Close()
		delete(s.handles, pid)
	}
}

// lookPorts reads the sockets that serve the ports and the processes
// that hold them (the one walk of every fd table that a port lookup
// makes): the holders by PID, each with its listeners.
func (s *snapshot) lookPorts(ports []uint16, proto string) ([]int, map[int][]Listener, error) {
	ls, hs, err := sockets.Lookup(ports...)
	if err != nil {
		return nil, nil, err
	}
	ls, hs = ofProto(ls, proto), holdersOfProto(hs, proto)
	s.ports, s.holders = portStates(ports, ls, hs), hs
	traceStates(s.ports)
	var pids []int
	held := map[int][]Listener{}
	for _, h := range hs {
		if _, ok := held[h.PID]; !ok {
			pids = append(pids, h.PID)
		}
		held[h.PID] = append(held[h.PID], h.Listener)
	}
	return pids, held, nil
}

// scan is the one pass over every process's environment: the PIDs that
// carry the markers (and the name), each to be checked whole, and the
// members of the runs of the records and cgroups that the scan cannot
// see. Every marked process, another user's too, is kept by its run id
// for the runs to be made whole.
func (s *snapshot) scan(f Filter) []int {
	var pids []int
	ms, executing := ptree.ScanValues(proc.Host(), f.Markers.Entries(f.Name), marker.RunIDVar)
	s.runs = byRun(ms)
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
	pids = append(pids, executing...)
	pids = append(pids, contained(pids)...)
	// One process found two ways (marked and in the middle of an
	// execve, say) is checked, and held, once.
	return unique(append(pids, s.records.living(pids)...))
}

// unique is pids without repeats, in their first order.
func unique(pids []int) []int {
	seen := make(map[int]bool, len(pids))
	out := pids[:0]
	for _, pid := range pids {
		if !seen[pid] {
			seen[pid] = true
			out = append(out, pid)
		}
	}
	return out
}

// byRun sorts the marked processes by the run id they carry.
func byRun(ms []ptree.Valued) map[string][]procid.ID {
	out := map[string][]procid.ID{}
	for _, m := range ms {
		if m.Value != "" {
			out[m.Value] = append(out[m.Value], m.ID)
		}
	}
	return out
}

// heldBound is a quarter of this process's limit of open files, at
// least 64; 1024 where the limit cannot be read.
func heldBound() int {
	n, ok := openFilesLimit()
	if !ok {
		return 1024
	}
	return max(64, n/4)
}
