package reclaim

// Result is one process and what was done to it.
type Result struct {
	Process
	Selected bool    // the filter selected it for termination
	Outcome  Outcome // what became of it
	// Excluded is the kind of reason a Skipped (or Changed, no longer
	// selected) process was left out; "" for another outcome. With the
	// Process's fields (or Cause.Again's), it is what a caller words, and
	// what would include it; the embedded probe.Report's Why is what the
	// process's verdict rests on.
	Excluded Reason
	// Cause is why a selected process was Changed, Failed or Survived;
	// the zero Cause for another outcome.
	Cause   Cause
	Signals []Sent // what was sent, in order: TERM, KILL
}

// ended reports whether the process is gone, by tether's hand or its own.
func (r Result) ended() bool { return r.Outcome == Gone || r.Outcome == AlreadyGone }
