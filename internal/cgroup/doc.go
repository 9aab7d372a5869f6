// Package cgroup keeps a contained run in a cgroup v2 group of its own:
// made below tether's own cgroup and named after the run id, started into
// directly (clone3's CLONE_INTO_CGROUP, so that there is no moment at
// which the command runs outside it), ended whole with cgroup.kill, and
// removed at the end.
//
// A descendant that starts a new session, double-forks, clears or
// overwrites its environment, or resets its parent-death signal is still
// listed in the group's cgroup.procs, and cgroup.kill reaches it (and
// whatever it forks meanwhile) in one step. Only a process allowed to
// write to a group outside can leave, by moving itself there on purpose. The group also carries the
// run's stamp, as an extended attribute, so that a member whose
// environment no longer says whose it is can be recognised by its
// group.
//
// cgroup v2 is found where it is mounted, also beside v1 on a hybrid
// machine (/sys/fs/cgroup/unified). The "no internal processes" rule
// does not get in the way: the run's group is a leaf, and the cgroup
// tether runs in already holds processes (tether), so it distributes no
// controllers to its children and accepts new ones.
package cgroup
