// Package spawn starts tethered children: processes that carry tether's
// identity markers, get a parent-death signal, and run in their own
// process group.
//
// Linux sends the parent-death signal (PR_SET_PDEATHSIG) when the thread
// that forked the child exits, not the process (golang/go#27505). A Go
// program's goroutines move between threads, and a thread whose goroutine
// exited while locked is destroyed, killing every child it forked. So a
// child that outlives the call that starts it is forked from one goroutine
// that has locked its OS thread and never returns: the spawner.
// [Host.Start] stamps an exec.Cmd and runs its Start there. [Supervise],
// whose command never outlives it, keeps its own goroutine's thread
// locked until the command is reaped.
//
// A [Host] is for a program that starts many children over its life, as
// the supervisor this design comes from does: each child stays the
// caller's (its exec.Cmd is waited for by its Wait, never by the Host),
// [Child.Stop] ends its whole tree, and one
// watchdog for the whole program ends every child's tree should the
// program be killed with SIGKILL. A library takes nothing that is not its
// own: the Host reaps nothing, signals only the trees it started, and
// changes no flag or signal disposition of the program, so that the
// program's other exec.Cmds keep their statuses (the reapers that call
// wait4(-1) in a Go program steal them: go-reaper, hashicorp/go-reap).
//
// [Supervise] is what tether run does: it becomes a child subreaper, starts
// the command, forwards signals to its process group, reaps every orphan
// the tree leaves behind, cleans up what is left of the tree when the
// command exits (TERM, a grace period, then KILL), and returns how the
// command ended (an [Exit]). Unless [Options.SoleReaper] says the process has
// no other children (tether run, a container's PID 1), it reaps by PID
// only and tells the run's orphans from the program's own children, and
// it gives the program its signal state back as it found it. [Exec] is
// tether run --exec: arm the parent-death signal on the calling process,
// stamp the markers, and execve in place.
//
// All three take one [Options], and keep a run's books the same way
// (run.go: its id, cgroup, the list of its tree, its record, its
// watchdog). Should the supervisor itself be killed with
// SIGKILL, its watchdog (internal/watchdog, a second process started
// before the command) ends every process that carries the run id. The
// watchdog, and the init of a contained run's PID namespace
// (internal/pidns), are this program started again: main calls [Init]
// first, which runs them, and its call is what allows them (a program
// whose main does not call it gets no watchdog, and no PID namespace).
//
// On macOS, which has no parent-death signal and no subreaper, Supervise
// and a Host take the portable path (platform_portable.go): the caller is
// followed by a kqueue event, the tree is found by parent links, its
// process group and its run id, and the watchdog alone covers the command
// should the supervisor be killed; Exec, which would leave nothing to
// cover it, is refused. The tetherportable build tag has Linux take the same path, so
// that it is tested in Linux CI.
//
// Limits: the parent-death signal reaches only the direct child; grandchildren
// are cleaned up by the supervisor, the Host, or their watchdog. A macOS
// Host's children have no parent-death signal: [Host.Guarantees] says
// what holds there. On systems other than Linux and macOS, NewHost,
// Supervise and Exec return an error that is an [errors.ErrUnsupported]
// rather than start a child that nothing would tie to its parent.
package spawn
