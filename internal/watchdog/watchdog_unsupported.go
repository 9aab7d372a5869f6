//go:build !linux && !darwin

package watchdog

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tetherproc/tether/procid"
)

// errUnsupported is why there is no watchdog here.
var errUnsupported = errors.New("no watchdog on this platform")

// Watchdog is the handle on a supervisor's watchdog; there is none here,
// and every method of a nil Watchdog does nothing.
type Watchdog struct{}

// Spec is what a watchdog is started with.
type Spec struct {
	Path, Shell, RunID string
	Grace              time.Duration
}

// Start fails: there is no supervisor to watch on this platform.
func Start(Spec) (*Watchdog, error) { return nil, errUnsupported }

// Main fails: there is no supervisor to watch on this platform.
func Main([]string) int {
	fmt.Fprintln(os.Stderr, "tether-watchdog:", errUnsupported)
	return 125
}

func (wd *Watchdog) PID() int           { return 0 }
func (wd *Watchdog) Reaped()            {}
func (wd *Watchdog) Alive() bool        { return false }
func (wd *Watchdog) Stop()              {}
func (wd *Watchdog) StopExiting()       {}
func (wd *Watchdog) Group(int)          {}
func (wd *Watchdog) GroupGone()         {}
func (wd *Watchdog) Cgroup(string)      {}
func (wd *Watchdog) Record([]procid.ID) {}
