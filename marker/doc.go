// Package marker is the marker protocol (v1): the variables a tethered
// process carries in its environment, the rule of a name and of a run
// id, and how a supervisor stamps them ([Markers.Environ]) and how an
// environment is recognised as tethered ([Markers.Match]). It is the
// protocol's one home: the supervisors (spawn), the verdicts (probe), the
// scans (reclaim), the watchdog, the cgroups and the run records all take
// it from here, so that it is written down once.
//
// Why the environment: PIDs are recycled, so a PID on its own proves
// nothing, and a process's parent can die and leave it to init. The
// environment is inherited by every descendant without its cooperation,
// and the kernel keeps the one a process was started with where its owner
// and root, and no one else, can read it back (/proc/PID/environ on
// Linux, kern.procargs2 on macOS).
//
// The variables, [DefaultMarkerVar] ("TETHER", holding "1"),
// [DefaultNameVar] ("TETHER_NAME"), [SupervisorVar] ("TETHER_SUPERVISOR",
// "PID:START"), [RunIDVar] ("TETHER_RUN_ID") and the optional
// [PIDNamespaceVar] ("TETHER_PIDNS"), each answer one question: is this
// ours, under which name, whose death strands it, which run is it of, and
// in which PID namespace is its supervisor's PID to be read. A supervisor
// is named by PID and start time (a procid.ID) because a PID alone may
// name a newer process by the time it is read.
//
// Entries are compared whole, byte for byte ("TETHER_NAME=files2" is not
// "files"), so that no two readers can disagree about a match. A name is
// 1 to 64 characters of A-Z a-z 0-9 . _ - and a run id 32 lowercase hex
// digits, so that both stand in an environment entry, a file name, a
// cgroup name and a log line as they are. Another supervisor's scheme
// (two variables of its own, compared the same way) is recognised by
// naming them in [Markers].
//
// Limits: the environment read back is the one the process was started
// with (a later setenv or unsetenv is invisible), and a process that execs
// with a cleared environment drops the markers. Reading a process's
// environment, and the verdicts, are package probe's; this package reads
// no process and writes nothing.
package marker
