package reclaim

import (
	"time"

	"github.com/tetherproc/tether/probe"
)

// Cause is why a selected process was not ended as asked (Changed,
// Failed or Survived): its kind and the values that say it, for a caller
// to word. It is the zero Cause for another outcome; a Skipped process's
// reason is [Result.Excluded], with the fields of its [Process].
type Cause struct {
	Kind CauseKind
	// Err is what failed: the check again (Unchecked), the handle or the
	// signal (SignalFailed), the engine (EngineUnasked, EngineFailed),
	// or the caller's context (CutShort).
	Err error
	// Was and Now are the start times of the process found and of the
	// one that holds its PID now (StartChanged).
	Was uint64
	Now uint64
	// Again is the process as the check before the signal found it
	// (NoLongerSelected): [Result.Excluded] is the reason it is left out.
	Again *probe.Report
	// Manager is the container's, asked through its engine
	// (EngineUnasked, EngineFailed); Port is the first port its process
	// was found holding (SocketGone, EngineUnasked, EngineFailed), 0 for
	// none.
	Manager *Manager
	Port    uint16
	// After is how long after SIGKILL it was seen still alive
	// (KillIgnored).
	After time.Duration
}

// CauseKind is the kind of a [Cause].
type CauseKind string

// The causes.
const (
	// StartChanged: Changed; the PID names another process (its start
	// time, Was, is now Now).
	StartChanged CauseKind = "start-changed"
	// NoLongerSelected: Changed; the check before the signal found it
	// (Again) no longer selected, for [Result.Excluded].
	NoLongerSelected CauseKind = "no-longer-selected"
	// MarkersGone: Changed; its environment no longer carries the
	// markers, name and run id it was selected by.
	MarkersGone CauseKind = "markers-gone"
	// SocketGone: Changed; a holder tether did not start no longer holds
	// the socket of Port, by which alone it was known.
	SocketGone CauseKind = "socket-gone"
	// Unchecked: Changed; it could not be checked again (Err).
	Unchecked CauseKind = "unchecked"
	// SignalFailed: Failed; it could not be held or signalled (Err).
	SignalFailed CauseKind = "signal-failed"
	// EngineUnasked: Failed, in a dry run; the container's engine
	// (Manager) cannot be asked (Err): nothing would be signalled.
	EngineUnasked CauseKind = "engine-unasked"
	// EngineFailed: Failed; the container's engine (Manager) did not
	// stop it (Err): nothing was signalled.
	EngineFailed CauseKind = "engine-failed"
	// KillIgnored: Survived; still alive After SIGKILL.
	KillIgnored CauseKind = "kill-ignored"
	// CutShort: Survived; still alive a second after SIGKILL, sent at
	// once as the caller's context ended (Err).
	CutShort CauseKind = "cut-short"
)

// firstPort is the first port of ls, 0 for none.
func firstPort(ls []Listener) uint16 {
	if len(ls) == 0 {
		return 0
	}
	return ls[0].Port
}
