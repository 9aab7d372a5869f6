package pidns

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
)

// The init tells its supervisor, one line at a time on the report pipe
// (its fd 3): "started" once the command runs, "stop N" each time the
// command is stopped by signal N (a namespace's init cannot stop itself,
// so the supervisor stops in its place), "exit STATUS", the command's
// raw wait status, before the init ends the rest of the namespace, and
// "execfail ERRNO" in place of "started" when the command could not be
// executed. Both ends are here.

func reportStarted(w io.Writer) { fmt.Fprintln(w, "started") }

func reportStop(w io.Writer, sig syscall.Signal) { fmt.Fprintf(w, "stop %d\n", int(sig)) }

func reportExit(w io.Writer, ws uint32) { fmt.Fprintf(w, "exit %d\n", ws) }

// reportExecFailed says why the command could not be executed: its
// errno, or EINVAL for a failure that has none.
func reportExecFailed(w io.Writer, err error) {
	errno := syscall.EINVAL // kept where err holds no errno
	errors.As(err, &errno)
	fmt.Fprintf(w, "execfail %d\n", int(errno))
}

// report is one line of the pipe as read by the supervisor.
type report struct {
	word string // "started", "stop", "exit", "execfail"; anything else is ignored
	n    uint32 // the signal of a stop, the status of an exit, the errno of an execfail
}

func parseReport(line string) report {
	word, arg, _ := strings.Cut(line, " ")
	n, _ := strconv.ParseUint(arg, 10, 32)
	return report{word: word, n: uint32(n)}
}
