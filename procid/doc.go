// Package procid names one process exactly: its PID and the start time
// it had. A PID alone is not a name: once its process is reaped the
// kernel hands it to the next process to be born, and a tool that kept
// the bare number (a PID file, a list of children) would signal the
// stranger that holds it now. The pair is what tether's markers
// (TETHER_SUPERVISOR), its run records and every list of a run's
// members hold, and what the spawn, probe and reclaim packages take and
// give: one type for all of them, written "PID:START" wherever it is
// text.
//
// The start time is the kernel's, in the platform's unit (clock ticks
// since boot on Linux, field 22 of /proc/PID/stat; microseconds since the
// epoch on macOS), and is only compared for equality.
package procid
