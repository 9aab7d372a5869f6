// Package marker is the marker protocol (v1) itself, below every package
// that speaks it: the variables a tethered process carries, the rule of a
// run id, and a process written "PID:START". probe gives the verdicts and
// re-exports the names for library users; the watchdog, the cgroups and
// the run records, which probe imports, take them from here, so that the
// protocol is written down once.
package marker
