// Package watchdog is the second line of defence of a supervised run:
// a process that ends the run's whole tree should the supervisor be
// killed with SIGKILL (by the OOM killer, a CI runner's timeout), which
// no cleanup code of the supervisor's own survives.
//
// The supervisor starts it before the command ([Start]), in a session of
// its own, holding the read end of a pipe whose write end only the
// supervisor holds; the supervisor tells it the command's group and the
// run's cgroup as they come ([Watchdog.Group], [Watchdog.Cgroup]), keeps
// a list of the tree for it ([Watchdog.Record]), and says it is done
// when it ends normally ([Watchdog.Stop]). Should the pipe read EOF
// instead, the watchdog ends the run: TERM to the command's group and
// cgroup.kill of its cgroup at once, with no new process (a machine out
// of processes is one way a supervisor dies), then [Main], the second
// stage in tether's own binary, which ends every process that carries
// the run's entry, every member of the last list still the same process,
// with their subtrees, and what is left in the cgroup.
//
// It lives as long as the run and is started for every run, so its
// first stage is as small as a process gets: on x86-64 Linux a static
// program of a few hundred bytes (the waiter, generated from
// _asm/waiter_linux_amd64.asm), run from a sealed file in memory; a
// shell script elsewhere, or where the kernel will not run a file in
// memory; tether's binary itself where there is no shell. The three
// read the pipe by the same rules (protocol.go).
package watchdog
