package cgroup

// EnterArg is the first argument that makes tether's binary the step
// that puts a command into its run's cgroup before it runs, where the
// kernel cannot start it there (clone3 with CLONE_INTO_CGROUP: Linux 5.7,
// and refused by some container sandboxes): [EnterMain] writes itself
// into the group's cgroup.procs, which the supervisor opened for it as
// fd 3, then executes the command in place, keeping its PID. Nothing of
// the command runs outside the group, and it cannot fork before it is in.
const EnterArg = "tether-enter"
