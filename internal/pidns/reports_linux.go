package pidns

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
)

// The init tells its supervisor, one line at a time on the report pipe
// (its fd 3): "started" once the command runs, "stop N" each time the
// command is stopped by signal N (a namespace's init cannot stop itself,
// so the supervisor stops in its place), and "exit STATUS", the
// command's raw wait status, before the init ends the rest of the
// namespace. Both ends are here.

func reportStarted(w io.Writer) { fmt.Fprintln(w, "started") }

func reportStop(w io.Writer, sig syscall.Signal) { fmt.Fprintf(w, "stop %d\n", int(sig)) }

func reportExit(w io.Writer, ws uint32) { fmt.Fprintf(w, "exit %d\n", ws) }

// report is one line of the pipe as read by the supervisor.
type report struct {
	word string // "started", "stop", "exit"; anything else is ignored
	n    uint32 // the signal of a stop, the status of an exit
}

func parseReport(line string) report {
	word, arg, _ := strings.Cut(line, " ")
	n, _ := strconv.ParseUint(arg, 10, 32)
	return report{word: word, n: uint32(n)}
}
