//go:build !amd64

package watchdog

// waiterMachine and waiterCode: no waiter for this architecture; the
// watchdog's first stage is the shell script.
const waiterMachine = 0

var waiterCode []byte
