package spawn

import (
	"syscall"
	"unsafe"
)

// A thread's signal mask on macOS, read and set through libSystem's
// pthread_sigmask, as Go's runtime calls it and as golang.org/x/sys/unix
// calls libc (which offers no wrapper of it on darwin): no cgo, and no
// system call made directly. XNU keeps the blocked signals per thread
// (kern.proc.pid's p_sigmask is never filled in), and the terminal's
// background check (ttioctl) looks at the calling thread's.

//go:cgo_import_dynamic libc_pthread_sigmask pthread_sigmask "/usr/lib/libSystem.B.dylib"

// libc_pthread_sigmask_trampoline_addr is set in the assembly files
// (sigmask_darwin_amd64.s, sigmask_darwin_arm64.s): a jump to the
// function, called with the C calling convention by the runtime.
var libc_pthread_sigmask_trampoline_addr uintptr

// syscall_syscall is syscall.syscall (in the runtime): fn called with
// three arguments through the runtime's libc call. The standard library
// makes it reachable by this name (go.dev/issue/67401).
//
//go:linkname syscall_syscall syscall.syscall
func syscall_syscall(fn, a1, a2, a3 uintptr) (r1, r2 uintptr, err syscall.Errno)

// How pthread_sigmask changes the mask, as <sys/signal.h> numbers them.
const (
	sigBlock   = 1
	sigSetmask = 3
)

// threadSigmask is pthread_sigmask(how, set, old) on the calling thread,
// which must be locked to its goroutine: set may be nil (the mask only
// read into old), and old too. It returns the error number, not -1.
func threadSigmask(how int, set, old *uint32) error {
	r, _, _ := syscall_syscall(libc_pthread_sigmask_trampoline_addr, uintptr(how), uintptr(unsafe.Pointer(set)), uintptr(unsafe.Pointer(old)))
	if e := int32(r); e != 0 {
		return syscall.Errno(e)
	}
	return nil
}
