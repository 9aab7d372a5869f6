//go:build unix

package trace

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// stderrCopy is standard error under another descriptor: a write to a
// closed pipe on descriptor 2 raises SIGPIPE, which would end the
// process; on any other it is only an error, and a trace line is not
// worth a process.
func stderrCopy() io.Writer {
	fd, err := unix.FcntlInt(2, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return os.Stderr
	}
	return os.NewFile(uintptr(fd), "trace")
}
