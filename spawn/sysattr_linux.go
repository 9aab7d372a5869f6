package spawn

import "syscall"

// usesCgroupFD says a has the child born in a cgroup of the caller's
// choosing, which a run's own would override.
func usesCgroupFD(a *syscall.SysProcAttr) bool { return a.UseCgroupFD }
