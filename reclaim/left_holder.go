package reclaim

// LeftHolder is one holder of a port that a reclaim left holding it (or
// that a dry run would leave), and why: what a caller asked to free a
// port needs to know to free it. The words are the caller's to choose;
// the [Result] of the same PID, or the [Retaker], has the details.
type LeftHolder struct {
	Why LeftWhy
	// PID is the holder's; 0 for one out of sight (LeftOutOfSight).
	PID int
	// UID is the owner of the socket whose holder is out of sight (0,
	// root, is one); nil for a holder in sight.
	UID *int
}

// LeftWhy is why a holder of a port was left holding it.
type LeftWhy string

const (
	// LeftTookAgain: it took the port again after the reclaim freed it
	// (its [Retaker] is in PortState.Again).
	LeftTookAgain LeftWhy = "took-again"
	// LeftBoundMeanwhile: it bound the port while the reclaim looked, and
	// has no Result.
	LeftBoundMeanwhile LeftWhy = "bound-meanwhile"
	// LeftNotEnded: it was selected, and its Result's Outcome (Survived,
	// Failed, Changed) and Cause say what kept it.
	LeftNotEnded LeftWhy = "not-ended"
	// LeftNotSelected: the filter left it out; its Result's Excluded
	// says why.
	LeftNotSelected LeftWhy = "not-selected"
	// LeftOutOfSight: a socket on the port whose holding process cannot be
	// seen (another user's, to a caller who is not root); UID is its
	// owner.
	LeftOutOfSight LeftWhy = "out-of-sight"
)
