//go:build windows

package reclaim

// terminate cannot act here: nothing is ever selected on this platform,
// and nothing is signalled on a guess.
func terminate(r *Result, opts Options, act Action) {
	r.Outcome, r.Why = Failed, "terminating a process is not supported on windows"
}
