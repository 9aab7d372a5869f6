// Package trace is tether's decision log: with TETHER_DEBUG=1 in the
// environment (or tether's --debug flag, which sets it), every decision
// that changes what happens to a process is written as one line on
// standard error, prefixed "tether[PID]:".
//
// A supervisor that signals, reaps and kills on its own must be able to
// say why it did so; without a trace, a failure to follow the parent or a
// signal that could not be sent is a silent exit. Off, it costs one
// boolean test per call site and prints nothing.
package trace

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
)

// Var is the environment variable that turns tracing on: "1" enables it.
// It is inherited, so a watchdog or a nested tether traces too.
const Var = "TETHER_DEBUG"

var (
	mu  sync.Mutex
	out io.Writer
	on  atomic.Bool
)

func init() { on.Store(os.Getenv(Var) == "1") }

// Enable turns tracing on for this process and the processes it starts
// from now on.
func Enable() {
	on.Store(true)
	_ = os.Setenv(Var, "1")
}

// On reports whether tracing is on: callers test it before building an
// expensive line.
func On() bool { return on.Load() }

// SetOutput sends trace lines to w instead of standard error, for a
// process whose standard error is not its caller's (the watchdog).
func SetOutput(w io.Writer) {
	mu.Lock()
	out = w
	mu.Unlock()
}

// Printf writes one line when tracing is on.
func Printf(format string, args ...any) {
	if !on.Load() {
		return
	}
	line := "tether[" + strconv.Itoa(os.Getpid()) + "]: " + fmt.Sprintf(format, args...) + "\n"
	mu.Lock()
	defer mu.Unlock()
	w := out
	if w == nil {
		w = os.Stderr
	}
	_, _ = io.WriteString(w, line)
}
