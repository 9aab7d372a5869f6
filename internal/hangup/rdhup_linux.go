//go:build linux && tetherportable

package hangup

import "golang.org/x/sys/unix"

// pollRDHUP is a socket's half-close on Linux, which macOS reports as
// POLLHUP (EV_EOF on the read filter).
const pollRDHUP = unix.POLLRDHUP
