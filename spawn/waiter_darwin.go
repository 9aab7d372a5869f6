package spawn

import "errors"

// waiterFD: no waiter on macOS (waiter_linux.go); the watchdog's
// waiting half is the shell script.
func waiterFD() (int, error) { return -1, errors.New("no watchdog waiter on macOS") }
