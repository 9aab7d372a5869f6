package spawn

import (
	"strconv"
	"syscall"
)

// Exit is how a supervised command ended: it exited with Code, or
// Signal killed it (and Code is -1), as os.ProcessState tells the one
// from the other. A shell's single number for both (128+N for death by
// signal N) is the caller's to make: tether run makes it.
//
// Supervise returns the zero Exit with an error that says the command
// did not run; and Exit{Code: -1, Signal: SIGTERM} with no error when the
// caller died before the command could be started, as that death would
// have ended it.
type Exit struct {
	Code     int            // the exit code; -1 when Signal killed the command
	Signal   syscall.Signal // the signal the command died of; 0 when it exited
	CoreDump bool           // the signal left a core dump
}

// Exited reports whether the command exited, rather than died of a signal.
func (e Exit) Exited() bool { return e.Signal == 0 }

// Success reports whether the command exited with code 0.
func (e Exit) Success() bool { return e.Signal == 0 && e.Code == 0 }

// String says it as os.ProcessState does: "exit status 3", "signal:
// terminated", "signal: segmentation fault (core dumped)".
func (e Exit) String() string {
	if e.Signal != 0 {
		if e.CoreDump {
			return "signal: " + e.Signal.String() + " (core dumped)"
		}
		return "signal: " + e.Signal.String()
	}
	return "exit status " + strconv.Itoa(e.Code)
}
