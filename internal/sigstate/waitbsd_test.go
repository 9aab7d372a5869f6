package sigstate

import (
	"syscall"
	"testing"
)

// Wait statuses as XNU writes them (bsd/sys/wait.h: W_EXITCODE(ret, sig)
// is ret<<8 | sig, W_STOPCODE(sig) is sig<<8 | 0177; macOS numbers
// SIGSTOP 17, SIGTSTP 18, SIGCONT 19).
func TestBSDWaitStatus(t *testing.T) {
	tests := []struct {
		w         uint32
		stop      syscall.Signal
		stopped   bool
		continued bool
	}{
		{0x117f, 17, true, false}, // stopped by SIGSTOP
		{0x127f, 18, true, false}, // stopped by SIGTSTP (Ctrl-Z)
		{0x137f, 0, false, true},  // continued by SIGCONT
		{0x0300, 0, false, false}, // exited 3
		{0x000f, 0, false, false}, // killed by SIGTERM
	}
	for _, tt := range tests {
		stop, stopped := bsdStopSignal(tt.w)
		if stopped != tt.stopped || (stopped && stop != tt.stop) || bsdContinued(tt.w) != tt.continued {
			t.Errorf("status %#x: stopped %v by %d, continued %v; want %v by %d, %v", tt.w, stopped, stop, bsdContinued(tt.w), tt.stopped, tt.stop, tt.continued)
		}
	}
}
