// Package runtree is a run's tree: the processes of one run, or of
// several ended together, listed as one set from the sources that tie
// them to it, and ended as one (TERM, a grace, KILL).
//
// A run is never one thing the kernel can name. Below a child subreaper
// it is a subtree; once its supervisor is gone it is scattered, and what
// still ties it together is the list the supervisor last wrote down
// (checked by start time), the run's cgroup, and the run id its
// processes carry in their environments. Each of those is a Source
// here, and a Tree is the union of its sources: Supervise lists its
// command's tree below itself and in its cgroup, the watchdog's second
// stage from the kept list, the cgroup and the run id, a Host from the
// trees of the children it ends together, and reclaim from the
// processes it verified. Whoever builds the Tree says how a member is
// signalled and how to wait for one to go; End is the one TERM, grace,
// KILL of tether, and the verified signal it defaults to is
// internal/kill's.
package runtree
