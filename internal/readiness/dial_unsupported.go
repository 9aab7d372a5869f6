//go:build !unix

package readiness

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

// dial fails: no socket is opened here (no listener is found to send a
// request to either).
func dial(e endpoint, deadline time.Time) (*os.File, error) {
	return nil, fmt.Errorf("a connection to %s is not supported on %s", e, runtime.GOOS)
}

func accepts(e endpoint, deadline time.Time) error {
	_, err := dial(e, deadline)
	return err
}

func exchange(e endpoint, req []byte, deadline time.Time) (string, error) {
	_, err := dial(e, deadline)
	return "", err
}
