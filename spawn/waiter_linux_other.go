//go:build linux && !amd64

package spawn

// waiterMachine and waiterCode: no waiter for this architecture; the
// watchdog's waiting half is the shell script.
const waiterMachine = 0

var waiterCode []byte
