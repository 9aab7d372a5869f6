//go:build !unix

package readiness

import (
	"fmt"
	"net/netip"
	"runtime"
	"time"
)

// exchange fails: no socket is opened here (no listener is found to
// send a request to either).
func exchange(to netip.AddrPort, req []byte, deadline time.Time) (string, error) {
	return "", fmt.Errorf("an HTTP request to %s is not supported on %s", to, runtime.GOOS)
}
