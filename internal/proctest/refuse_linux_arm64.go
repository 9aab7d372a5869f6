package proctest

import "golang.org/x/sys/unix"

// auditArch is the architecture that seccomp_data gives the build's own
// system calls; arm64 has no x32 counterpart.
const (
	auditArch = unix.AUDIT_ARCH_AARCH64
	x32       = false
)
