//go:build unix

package pidfd

// classified keeps the operating system's error for the message while
// classifying it as proc.ErrGone or proc.ErrUnverifiable for errors.Is,
// as the readers of internal/proc classify theirs: a caller cannot tell,
// and need not, whether a process was found gone by a read or by a
// handle.
type classified struct {
	what string
	kind error
	err  error
}

func (e *classified) Error() string   { return e.what + ": " + e.err.Error() }
func (e *classified) Unwrap() []error { return []error{e.kind, e.err} }
