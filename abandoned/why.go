package abandoned

// Why is why a reparented process with pipes or sockets for
// its standard input and output was left out of the selection.
type Why int

const (
	// LivePeer: something outside the tree still writes its input or
	// reads its output (a live session's server, a pipeline's stage).
	LivePeer Why = iota + 1
	// EndsUnknown: the other ends could not be read (another user's pipe, a
	// socket of another family or network namespace, a process in the
	// middle of an execve): never taken as gone.
	EndsUnknown
	// ManagedTree: a container engine or a service manager runs it.
	ManagedTree
	// OnTerminal: a member has a terminal for its input or output.
	OnTerminal
	// MemberProtected: a member is PID 1, tether itself or its ancestor.
	MemberProtected
	// MemberOtherUser: a member is another user's, and other users' were not
	// asked for.
	MemberOtherUser
	// RootChanged: looked at again before its end, its root had exited
	// or its input or output had been replaced; what is left of it is
	// looked at anew the next time.
	RootChanged
)
