package sockets

import (
	"syscall"
	_ "unsafe" // go:linkname
)

// The calls into libSystem, made as golang.org/x/sys/unix makes its own
// on darwin, without cgo: the linker binds each libc_* symbol to the
// function of /usr/lib/libSystem.B.dylib named beside it; a trampoline
// per architecture (libproc_darwin_amd64.s, libproc_darwin_arm64.s)
// calls it with the C calling convention; the runtime's syscall6 runs
// the trampoline on the system stack, as a system call for the scheduler,
// and reads errno right after it. No system call is made directly: the
// kernel's call numbers are not an interface Apple supports.

//go:cgo_import_dynamic libc_proc_listpids proc_listpids "/usr/lib/libSystem.B.dylib"
//go:cgo_import_dynamic libc_proc_pidinfo proc_pidinfo "/usr/lib/libSystem.B.dylib"
//go:cgo_import_dynamic libc_proc_pidfdinfo proc_pidfdinfo "/usr/lib/libSystem.B.dylib"
//go:cgo_import_dynamic libc_error __error "/usr/lib/libSystem.B.dylib"

// The trampolines' addresses, set in the assembly files.
var (
	libproc_listpids_trampoline_addr  uintptr
	libproc_pidinfo_trampoline_addr   uintptr
	libproc_pidfdinfo_trampoline_addr uintptr
)

// syscall_syscall6 is syscall.syscall6 (in the runtime,
// syscall_syscalln): fn called with six arguments through the
// runtime's libc call, errno returned when the result's low 32 bits are
// -1. The standard library makes it reachable by this name
// (go.dev/issue/67401).
//
//go:linkname syscall_syscall6 syscall.syscall6
func syscall_syscall6(fn, a1, a2, a3, a4, a5, a6 uintptr) (r1, r2 uintptr, err syscall.Errno)

// trampoline is the address to call for fn.
func (f libprocFunc) trampoline() uintptr {
	switch f {
	case fnListPIDs:
		return libproc_listpids_trampoline_addr
	case fnPIDInfo:
		return libproc_pidinfo_trampoline_addr
	default:
		return libproc_pidfdinfo_trampoline_addr
	}
}

// libSystem makes the call. The buffer's address is converted in the
// call's own argument list, which keeps the buffer alive until it
// returns.
func libSystem(c libprocCall) (uintptr, syscall.Errno) {
	r, _, e := syscall_syscall6(c.fn.trampoline(), uintptr(c.args[0]), uintptr(c.args[1]), uintptr(c.args[2]), uintptr(c.buf), uintptr(c.size), 0)
	return r, e
}

// sys is libproc as macOS has it.
var sys = libprocCaller(libSystem)
