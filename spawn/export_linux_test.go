package spawn

// NewHostWithoutWatchdog is a Host that starts no watchdog although the
// test binary's main called Init: what a program whose main does not
// call it gets.
func NewHostWithoutWatchdog() (*Host, error) {
	h, err := NewHost()
	if err == nil {
		h.noWatchdog = true
	}
	return h, err
}
