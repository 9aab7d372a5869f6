// Package pidns is the init of a contained run's PID namespace
// (tether run --contain=pidns), both ends of it: [Main], the small init
// tether's own binary becomes inside new PID and mount namespaces, and
// [Init], the supervisor's handle on it.
//
// The command is not made the namespace's init, because a namespace's
// init ignores every signal it has no handler for: the command keeps the
// signal semantics it has anywhere else, and tether's init, which
// catches every signal, lets them pass. The init is tied to the
// supervisor by SIGKILL as its parent-death signal: when the supervisor
// dies, the init dies, and with it, by the kernel's hand, every process
// of the namespace, whatever it did to its environment or its session.
//
// The two talk over one pipe (reports.go): the init says when the
// command has started, each time it stops (a namespace's init cannot stop
// itself, so the supervisor stops in its place, and a shell sees its job
// stopped), and how it ended; the supervisor reads the command's exit
// status from there, as the init's own is only a copy of it.
package pidns
