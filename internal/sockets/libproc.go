package sockets

import (
	"errors"
	"fmt"
	"math"
	"os"
	"syscall"
	"unsafe"
)

// On macOS the proc_info answers come from libSystem's libproc, the
// interface Apple supports: proc_listpids, proc_pidinfo and
// proc_pidfdinfo, called without cgo as golang.org/x/sys calls libc
// (libproc_darwin.go). What those calls take and what their answers mean
// is here, in no build file of its own, so that it is tested on Linux.
//
// The three functions, as <libproc.h> declares them:
//
//	int proc_listpids(uint32_t type, uint32_t typeinfo, void *buffer, int buffersize);
//	int proc_pidinfo(int pid, int flavor, uint64_t arg, void *buffer, int buffersize);
//	int proc_pidfdinfo(int pid, int fd, int flavor, void *buffer, int buffersize);
//
// Each returns the number of bytes it wrote into buffer, or, for a list
// asked with a null buffer, an estimate of the size it needs; on failure
// it returns 0, not -1, and errno says why. The runtime's syscall6 hands
// errno back only with a -1, and a 0 can also be a true answer (a process
// with no descriptors lists none), so the trampolines clear errno before
// the call and turn a 0 answer into -1: -1 with errno 0 is an empty
// answer, -1 with errno set a failure.

// libprocFunc is one of the three libproc functions.
type libprocFunc int

const (
	fnListPIDs  libprocFunc = iota // proc_listpids
	fnPIDInfo                      // proc_pidinfo
	fnPIDFDInfo                    // proc_pidfdinfo
)

func (f libprocFunc) String() string {
	switch f {
	case fnListPIDs:
		return "proc_listpids"
	case fnPIDInfo:
		return "proc_pidinfo"
	case fnPIDFDInfo:
		return "proc_pidfdinfo"
	}
	return fmt.Sprintf("libprocFunc(%d)", int(f))
}

// libprocCall is one call of a libproc function: its three leading
// arguments in C's order (each as wide as a register: the C callee reads
// the low 32 bits of an int, all 64 of proc_pidinfo's arg), then the
// buffer and its size. A nil buffer asks for the size.
type libprocCall struct {
	fn   libprocFunc
	args [3]uint64
	buf  unsafe.Pointer
	size int32
}

// errLibprocArg is a call refused before it is made.
var errLibprocArg = errors.New("argument out of range")

func badArg(fn libprocFunc, what string, v int64) error {
	return fmt.Errorf("%v: %s %d: %w", fn, what, v, errLibprocArg)
}

// bufferOf is buf as the calls take it: its first byte's address and its
// length as a C int, or nil and 0 for an empty buf (a size query).
func bufferOf(fn libprocFunc, buf []byte) (unsafe.Pointer, int32, error) {
	if len(buf) == 0 {
		return nil, 0, nil
	}
	if !inCInt(len(buf), 0) {
		return nil, 0, badArg(fn, "buffer size", int64(len(buf)))
	}
	return unsafe.Pointer(&buf[0]), int32(len(buf)), nil
}

// inCInt reports whether v is a C int no smaller than low.
func inCInt(v int, low int) bool { return v >= low && v <= math.MaxInt32 }

// listPIDsCall is proc_listpids(typ, typeinfo, buf, len(buf)).
func listPIDsCall(typ, typeinfo uint32, buf []byte) (libprocCall, error) {
	p, n, err := bufferOf(fnListPIDs, buf)
	if err != nil {
		return libprocCall{}, err
	}
	return libprocCall{fn: fnListPIDs, args: [3]uint64{uint64(typ), uint64(typeinfo), 0}, buf: p, size: n}, nil
}

// pidInfoCall is proc_pidinfo(pid, flavor, arg, buf, len(buf)).
func pidInfoCall(pid, flavor int, arg uint64, buf []byte) (libprocCall, error) {
	switch {
	case !inCInt(pid, 0):
		return libprocCall{}, badArg(fnPIDInfo, "pid", int64(pid))
	case !inCInt(flavor, 1):
		return libprocCall{}, badArg(fnPIDInfo, "flavor", int64(flavor))
	}
	p, n, err := bufferOf(fnPIDInfo, buf)
	if err != nil {
		return libprocCall{}, err
	}
	return libprocCall{fn: fnPIDInfo, args: [3]uint64{uint64(pid), uint64(flavor), arg}, buf: p, size: n}, nil
}

// pidFDInfoCall is proc_pidfdinfo(pid, fd, flavor, buf, len(buf)).
func pidFDInfoCall(pid, fd, flavor int, buf []byte) (libprocCall, error) {
	switch {
	case !inCInt(pid, 0):
		return libprocCall{}, badArg(fnPIDFDInfo, "pid", int64(pid))
	case !inCInt(fd, 0):
		return libprocCall{}, badArg(fnPIDFDInfo, "fd", int64(fd))
	case !inCInt(flavor, 1):
		return libprocCall{}, badArg(fnPIDFDInfo, "flavor", int64(flavor))
	}
	p, n, err := bufferOf(fnPIDFDInfo, buf)
	if err != nil {
		return libprocCall{}, err
	}
	return libprocCall{fn: fnPIDFDInfo, args: [3]uint64{uint64(pid), uint64(fd), uint64(flavor)}, buf: p, size: n}, nil
}

// result reads what the call returned through its trampoline: r, whose
// low 32 bits are the C int (neither ABI defines the rest), and errno as
// the runtime read it right after the call. It is the byte count, or why
// there is none.
func (c libprocCall) result(r uintptr, e syscall.Errno) (int, error) {
	n := int32(uint32(r))
	switch {
	case n == -1 && e == 0:
		return 0, nil // a true 0: nothing to list
	case n == -1:
		return 0, os.NewSyscallError(c.fn.String(), e)
	case n < 0:
		return 0, fmt.Errorf("%v: answered %d", c.fn, n)
	case c.buf != nil && n > c.size:
		return 0, fmt.Errorf("%v: answered %d bytes into a buffer of %d", c.fn, n, c.size)
	}
	return int(n), nil
}

// libprocCaller makes a call and returns what its trampoline returns:
// the result register and errno. On macOS it is libSystem
// (libproc_darwin.go); in tests, a fixture that answers as the kernel does.
type libprocCaller func(c libprocCall) (r uintptr, e syscall.Errno)

// listPIDs is proc_listpids(typ, typeinfo, buf, len(buf)).
func (call libprocCaller) listPIDs(typ, typeinfo uint32, buf []byte) (int, error) {
	c, err := listPIDsCall(typ, typeinfo, buf)
	if err != nil {
		return 0, err
	}
	return c.result(call(c))
}

// pidInfo is proc_pidinfo(pid, flavor, arg, buf, len(buf)).
func (call libprocCaller) pidInfo(pid, flavor int, arg uint64, buf []byte) (int, error) {
	c, err := pidInfoCall(pid, flavor, arg, buf)
	if err != nil {
		return 0, err
	}
	return c.result(call(c))
}

// pidFDInfo is proc_pidfdinfo(pid, fd, flavor, buf, len(buf)).
func (call libprocCaller) pidFDInfo(pid, fd, flavor int, buf []byte) (int, error) {
	c, err := pidFDInfoCall(pid, fd, flavor, buf)
	if err != nil {
		return 0, err
	}
	return c.result(call(c))
}

// allPIDs lists every process (PROC_ALL_PIDS).
func (call libprocCaller) allPIDs() ([]int, error) {
	est, _ := call.listPIDs(procAllPIDs, 0, nil)
	b, err := grow(est*2, func(buf []byte) (int, error) {
		return call.listPIDs(procAllPIDs, 0, buf)
	})
	if err != nil {
		return nil, err
	}
	return parsePIDList(b), nil
}

// sockets lists the sockets pid holds, by descriptor: PROC_PIDLISTFDS,
// then PROC_PIDFDSOCKETINFO for each socket. A descriptor closed
// between the two is left out.
func (call libprocCaller) sockets(pid int) (map[int32]darwinSocket, error) {
	est, err := call.pidInfo(pid, procPIDListFDs, 0, nil)
	if err != nil {
		return nil, err // gone, or another user's
	}
	b, err := grow(est, func(buf []byte) (int, error) {
		return call.pidInfo(pid, procPIDListFDs, 0, buf)
	})
	if err != nil {
		return nil, err
	}
	fds, err := parseFDList(b)
	if err != nil {
		return nil, err
	}
	out := map[int32]darwinSocket{}
	info := make([]byte, socketFDInfoSize)
	for _, f := range fds {
		if f.fdType != proxFDTypeSocket {
			continue
		}
		if n, err := call.pidFDInfo(pid, int(f.fd), procPIDFDSocketInfo, info); err != nil || n != socketFDInfoSize {
			continue
		}
		if s, err := parseSocketInfo(info); err == nil {
			out[f.fd] = s
		}
	}
	return out, nil
}

// grow fills a buffer through fill, larger each time the answer fills it
// (the lists change between calls): size is the first estimate.
func grow(size int, fill func([]byte) (int, error)) ([]byte, error) {
	size = max(size, 4096)
	for tries := 0; tries < 8; tries++ {
		buf := make([]byte, size)
		n, err := fill(buf)
		if err != nil {
			return nil, err
		}
		if n < len(buf) {
			return buf[:n], nil
		}
		size *= 2
	}
	return nil, errors.New("libproc: the list kept growing")
}
