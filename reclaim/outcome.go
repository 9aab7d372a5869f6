package reclaim

// Outcome is what became of one process.
type Outcome string

// The outcomes. Survived and Failed are the two where a selected process
// may still be alive ([Summary.AllGone]).
const (
	Skipped     Outcome = "skipped"      // not selected; see Result.Excluded
	WouldSignal Outcome = "would-signal" // selected, and this is a dry run
	Gone        Outcome = "gone"         // signalled, and it exited
	AlreadyGone Outcome = "already-gone" // it exited before it was signalled
	Changed     Outcome = "changed"      // no longer what was selected (PID recycled, supervisor back): not signalled
	Survived    Outcome = "survived"     // still alive after KILL
	Failed      Outcome = "failed"       // could not be signalled; see Result.Cause
)
