package reclaim

// PortState is what serves one port: whether anything does, and the
// processes seen holding it. A port can be held with no holder in sight:
// another user's process, whose fd table cannot be read.
type PortState struct {
	Port    uint16
	Free    bool  // nothing serves it, in sight or out of it
	Holders []int // the PIDs seen holding it
	// Hidden are the owners (uids) of sockets on the port whose holding
	// process could not be seen.
	Hidden []int
	// Left is, for a port that is held after a reclaim (or would be
	// after a dry run), each holder left and why.
	Left []LeftHolder
	// Again are the processes that took the port again after the
	// reclaim freed it, within [Action.Settle].
	Again []Retaker
}
