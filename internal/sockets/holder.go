package sockets

// Holder is a process that holds a listener: one of its descriptors
// names the socket.
type Holder struct {
	PID      int
	Listener Listener
}
