// Package probe answers one question about one PID: is this a process that
// tether started, and if so, is it still supervised or has it been stranded?
//
// PIDs are recycled, so a PID on its own proves nothing. Identity comes from
// markers that tether stamps into a child's environment (the marker protocol,
// v1, package marker: TETHER=1, TETHER_NAME, TETHER_SUPERVISOR and
// TETHER_RUN_ID) and that every descendant inherits. The live process's
// environment is read back from the kernel (/proc/PID/environ on Linux,
// the kern.procargs2 sysctl on macOS) and must hold the exact entries
// asked for, compared whole, byte for byte.
//
// The package fails closed. Where the environment cannot be read (another
// user's process, hidepid, a restricted macOS program, an operating system
// with no reader), the verdict is [Unverifiable], never "ours". probe itself
// never signals anything; callers that do (tether reclaim) must still guard
// against the PID being recycled between the check and the signal.
//
// The package is the verdict ([Check], [Report], [Verdict]); what the
// markers are (marker.Markers, marker.Stamp) is package marker's, and the
// reading of the kernel's process table it rests on is tether's internal
// /proc layer, shared with the packages that signal.
//
// Limits: the environment is the one the process was started with (a later
// setenv or unsetenv is invisible), and a process that execs with a cleared
// environment drops the markers and becomes foreign.
package probe
