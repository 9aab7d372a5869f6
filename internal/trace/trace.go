// Package trace is tether's decision log: with TETHER_DEBUG=1 in the
// environment (or tether's --debug flag, which sets it), every decision
// that changes what happens to a process is written as one line on
// standard error, prefixed "tether[PID]:". Only tether's own binary and
// its helpers read the variable (FromEnv): a Go program that imports the
// library gets nothing on its standard error, whatever its environment.
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
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tetherproc/tether/internal/printable"
)

// Var is the environment variable that turns tracing on: 1 (or true, yes,
// on) enables it. It is inherited, so a watchdog or a nested tether
// traces too.
const Var = "TETHER_DEBUG"

var (
	mu  sync.Mutex
	on  atomic.Bool
	out io.Writer
)

// FromEnv turns tracing on when the environment asks for it: called
// first by tether's main, and by the helpers the binary is started again
// as (the watchdog, a contained run's init), never by a library package.
func FromEnv() {
	if enabled(os.Getenv(Var)) {
		on.Store(true)
	}
}

// enabled reads the variable as a shell user would write it: 1, true,
// yes or on.
func enabled(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// Enable turns tracing on for this process and the processes it starts
// from now on.
func Enable() {
	on.Store(true)
	_ = os.Setenv(Var, "1")
}

// On reports whether tracing is on: callers test it before building an
// expensive line.
func On() bool { return on.Load() }

// Printf writes one line when tracing is on.
func Printf(format string, args ...any) {
	if !on.Load() {
		return
	}
	line := "tether[" + strconv.Itoa(os.Getpid()) + "]: " + printable.String(fmt.Sprintf(format, args...)) + "\n"
	mu.Lock()
	defer mu.Unlock()
	if out == nil {
		out = stderrCopy()
	}
	_, _ = io.WriteString(out, line)
}
