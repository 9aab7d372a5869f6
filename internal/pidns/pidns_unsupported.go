//go:build !linux

package pidns

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// errUnsupported is why there is no PID namespace here.
var errUnsupported = errors.New("PID namespaces are Linux's")

// Init is the handle on a contained run's init; there is none here, and
// every method of a nil Init does nothing.
type Init struct{}

// Usable fails: PID namespaces are Linux's.
func Usable() error { return errUnsupported }

// Prepare fails: PID namespaces are Linux's.
func Prepare(string, string, []string, time.Duration, *syscall.ProcAttr) (*Init, []string, error) {
	return nil, nil, errUnsupported
}

// Try fails: PID namespaces are Linux's.
func Try(string) error { return errUnsupported }

// Main fails: there is no namespace to be the init of.
func Main([]string) int {
	fmt.Fprintln(os.Stderr, "tether-init:", errUnsupported)
	return 125
}

func (in *Init) Started(int, bool)                               {}
func (in *Init) Signal(syscall.Signal) bool                      { return false }
func (in *Init) CommandGroup(int) int                            { return 0 }
func (in *Init) Stops() <-chan syscall.Signal                    { return nil }
func (in *Init) StillStopped() bool                              { return false }
func (in *Init) Status(ws syscall.WaitStatus) syscall.WaitStatus { return ws }
func (in *Init) Close()                                          {}
func (in *Init) ExecError() error                                { return nil }
