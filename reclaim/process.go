package reclaim

import "github.com/tetherproc/tether/probe"

// Process is one process found: a tethered process, or any holder of a
// port that was asked about.
type Process struct {
	probe.Report
	// Ports are the listeners it holds: of the ports asked about, or all
	// of them when listing.
	Ports []Listener
	// Protected says why it is never signalled: PID 1, the caller or
	// one of its ancestors; "" for a process that may be.
	Protected Protection
	// Manager is who runs a holder of a port tether did not start, when
	// a container engine or a service manager does: such a holder is
	// stopped through its engine, or never signalled.
	Manager *Manager
	// ofRun says it was found as a member of a run selected whole: as
	// root, it is ended with its run whoever's it is (nginx's workers).
	ofRun bool
	// through says it is to be ended through its supervisor, decided
	// once, in the selection, for the widening of its run and its signal
	// alike.
	through bool
}
