//go:build !unix

package trace

import (
	"io"
	"os"
)

// stderrCopy is standard error itself: no SIGPIPE here.
func stderrCopy() io.Writer { return os.Stderr }
