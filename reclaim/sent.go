package reclaim

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/tetherproc/tether/internal/proc"
)

// Sent is one step a reclaim took to end a process: a signal sent to
// it, or to its supervisor (which passes it on to its whole run), or,
// for a container's process, the container stopped through its engine.
// Its text, which is also its JSON, is "TERM", "KILL (to its
// supervisor)" or "stopped through docker".
type Sent struct {
	Signal       syscall.Signal // 0 when Engine stopped it
	ToSupervisor bool           // the signal went to the process's supervisor
	Engine       string         // the container engine that stopped it (see [Manager])
}

// String is the step as tether reclaim reports it.
func (s Sent) String() string {
	switch {
	case s.Engine != "":
		return "stopped through " + s.Engine
	case s.ToSupervisor:
		return proc.SignalName(s.Signal) + " (to its supervisor)"
	}
	return proc.SignalName(s.Signal)
}

// MarshalText is the step's text, for JSON.
func (s Sent) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads the step's text back, as tether reclaim --json
// writes it.
func (s *Sent) UnmarshalText(text []byte) error {
	t := string(text)
	if engine, ok := strings.CutPrefix(t, "stopped through "); ok && engine != "" {
		*s = Sent{Engine: engine}
		return nil
	}
	name, via := strings.CutSuffix(t, " (to its supervisor)")
	sig := proc.SignalNum(name)
	if sig == 0 {
		return fmt.Errorf("reclaim: %q is no step a reclaim takes (TERM, KILL (to its supervisor), stopped through ENGINE)", t)
	}
	*s = Sent{Signal: sig, ToSupervisor: via}
	return nil
}
