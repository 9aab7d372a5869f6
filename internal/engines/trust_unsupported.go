//go:build !unix

package engines

import (
	"fmt"
	"runtime"
)

// vouch fails closed: this platform's sockets have no owner to check.
func vouch(path string, holder int) (string, int, error) {
	return "", 0, fmt.Errorf("socket %s: engine sockets are not checked on %s: %w", path, runtime.GOOS, ErrUntrusted)
}
