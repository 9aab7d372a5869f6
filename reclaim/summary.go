package reclaim

// Summary is what one reclaim did: every process found, with what became
// of it, and with Ports, what serves each port afterwards.
type Summary struct {
	Results []Result    // every process found, by PID
	Ports   []PortState // with Filter.Ports: each port after the reclaim
}

// AllGone reports whether every selected process is gone: none
// survived, none failed.
func (s Summary) AllGone() bool {
	for _, r := range s.Results {
		if r.Outcome == Survived || r.Outcome == Failed {
			return false
		}
	}
	return true
}

// PortsFree reports whether every port asked about is free after the
// reclaim; after a dry run, whether it would be: every holder of every
// port would be signalled, and none is out of sight.
func (s Summary) PortsFree() bool {
	for _, st := range s.Ports {
		if !st.Free && (len(st.Left) > 0 || len(st.Hidden) > 0) {
			return false
		}
	}
	return true
}

// Result is the result for pid, and whether there is one.
func (s Summary) Result(pid int) (Result, bool) {
	for _, r := range s.Results {
		if r.PID == pid {
			return r, true
		}
	}
	return Result{}, false
}

// explainLeft fills in, for each port still held (or that a dry run
// would leave held), each holder left and why.
func (s Summary) explainLeft() {
	for i := range s.Ports {
		st := &s.Ports[i]
		st.Left = nil
		if st.Free {
			continue
		}
		again := map[int]bool{}
		for _, r := range st.Again {
			again[r.PID] = true
			st.Left = append(st.Left, LeftHolder{Why: LeftTookAgain, PID: r.PID})
		}
		for _, pid := range st.Holders {
			if again[pid] {
				continue
			}
			r, ok := s.Result(pid)
			switch {
			case !ok:
				st.Left = append(st.Left, LeftHolder{Why: LeftBoundMeanwhile, PID: pid})
			case r.Outcome == WouldSignal:
			case r.Selected:
				st.Left = append(st.Left, LeftHolder{Why: LeftNotEnded, PID: pid})
			default:
				st.Left = append(st.Left, LeftHolder{Why: LeftNotSelected, PID: pid})
			}
		}
		for _, uid := range st.Hidden {
			st.Left = append(st.Left, LeftHolder{Why: LeftOutOfSight, UID: &uid})
		}
	}
}
