package reclaim

// Reason is the kind of reason a process was left out: what a caller
// can act on (widen the filter, say), and words from the process's own
// fields. The empty Reason is none: the process matches, or is selected.
type Reason string

// The reasons a filter leaves a process out.
const (
	// NotTethered: no markers, container or record of a run (its
	// Verdict and Why say why).
	NotTethered Reason = "not-tethered"
	// OtherRun: a run other than [Filter.RunID] (its RunID).
	OtherRun Reason = "other-run"
	// OtherUser: another user's (its UID); [Filter.AnyUser] would include it.
	OtherUser Reason = "other-user"
	// OtherUserHolder: another user's holder of a port that tether did
	// not start; root with [Filter.AnyUser] may end it.
	OtherUserHolder Reason = "other-user-holder"
	// RootOnly: another user's holder of a port, which only root may end.
	RootOnly Reason = "root-only"
	// ForeignHolder: a holder of a port that tether did not start, or
	// cannot tell it did; [Filter.Foreign] would end it.
	ForeignHolder Reason = "foreign-holder"
	// SupervisedRun: its supervisor lives (its Supervisor, or its PPID
	// when none is known); [Filter.All] would include it.
	SupervisedRun Reason = "supervised"
	// Protected: never signalled (PID 1, the caller or an ancestor of
	// it): its Protected says which.
	Protected Reason = "protected"
	// ManagedUnit: a holder a service manager runs (a systemd unit):
	// never signalled, as the manager would restart it or mark it
	// failed; its Manager names the unit.
	ManagedUnit Reason = "managed-unit"
	// ManagedProgram: a holder a process manager runs as one of its
	// programs (pm2, supervisord): never signalled, as the manager would
	// start it again, and the manager itself runs other programs; its
	// Manager names the manager and the program.
	ManagedProgram Reason = "managed-program"
	// OutOfSight: a socket on a port asked about whose holder cannot be
	// seen (another user's process, hidepid): a listing's [OtherHolder].
	OutOfSight Reason = "out-of-sight"
)
