package proctest

import "golang.org/x/sys/unix"

// auditArch is the architecture that seccomp_data gives the build's own
// system calls; x32 says that x32 calls carry it too, marked by a bit of
// their number.
const (
	auditArch = unix.AUDIT_ARCH_X86_64
	x32       = true
)
