package abandoned

import (
	"syscall"
	"time"
)

// Action is how [End] ends the trees: the first
// signal (default SIGTERM), the grace before SIGKILL, and whether other
// users' processes may be ended (as Find was told).
type Action struct {
	Signal  syscall.Signal
	Grace   time.Duration
	AnyUser bool
}
