package spawn

import "syscall"

// usesCgroupFD: there are no cgroups here.
func usesCgroupFD(*syscall.SysProcAttr) bool { return false }
