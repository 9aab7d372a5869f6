package sockets

import (
	"encoding/binary"
	"errors"
	"math"
	"net/netip"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

func TestLibprocCallArguments(t *testing.T) {
	buf := make([]byte, 792)
	tests := []struct {
		name string
		call func() (libprocCall, error)
		fn   libprocFunc
		args [3]uint64
		buf  []byte
	}{
		{"proc_listpids size query", func() (libprocCall, error) { return listPIDsCall(procAllPIDs, 0, nil) },
			fnListPIDs, [3]uint64{1, 0, 0}, nil},
		{"proc_listpids into a buffer", func() (libprocCall, error) { return listPIDsCall(procAllPIDs, 0, buf) },
			fnListPIDs, [3]uint64{1, 0, 0}, buf},
		{"proc_listpids with typeinfo", func() (libprocCall, error) { return listPIDsCall(2, 0xffffffff, buf) },
			fnListPIDs, [3]uint64{2, 0xffffffff, 0}, buf},
		{"proc_pidinfo size query", func() (libprocCall, error) { return pidInfoCall(501, procPIDListFDs, 0, nil) },
			fnPIDInfo, [3]uint64{501, 1, 0}, nil},
		{"proc_pidinfo of the kernel", func() (libprocCall, error) { return pidInfoCall(0, procPIDListFDs, 0, buf) },
			fnPIDInfo, [3]uint64{0, 1, 0}, buf},
		// proc_pidinfo's arg is a uint64_t: passed whole.
		{"proc_pidinfo 64-bit arg", func() (libprocCall, error) { return pidInfoCall(77, 9, 1<<40|5, buf) },
			fnPIDInfo, [3]uint64{77, 9, 1<<40 | 5}, buf},
		// proc_pidfdinfo takes the descriptor before the flavor (the
		// kernel's proc_info takes them the other way round).
		{"proc_pidfdinfo", func() (libprocCall, error) { return pidFDInfoCall(501, 7, procPIDFDSocketInfo, buf) },
			fnPIDFDInfo, [3]uint64{501, 7, 3}, buf},
		{"proc_pidfdinfo largest", func() (libprocCall, error) {
			return pidFDInfoCall(math.MaxInt32, math.MaxInt32, procPIDFDSocketInfo, buf[:1])
		},
			fnPIDFDInfo, [3]uint64{math.MaxInt32, math.MaxInt32, 3}, buf[:1]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.call()
			if err != nil {
				t.Fatal(err)
			}
			if c.fn != tt.fn || c.args != tt.args {
				t.Errorf("call = %v%v, want %v%v", c.fn, c.args, tt.fn, tt.args)
			}
			if tt.buf == nil {
				if c.buf != nil || c.size != 0 {
					t.Errorf("size query: buffer %p, size %d; want a null buffer and 0", c.buf, c.size)
				}
				return
			}
			if c.buf != unsafe.Pointer(&tt.buf[0]) || int(c.size) != len(tt.buf) {
				t.Errorf("buffer %p, size %d; want %p, %d", c.buf, c.size, &tt.buf[0], len(tt.buf))
			}
		})
	}
	// An empty but non-nil buffer is a size query too: there is no first
	// byte to point at.
	if c, err := pidInfoCall(1, procPIDListFDs, 0, buf[:0]); err != nil || c.buf != nil || c.size != 0 {
		t.Errorf("pidInfoCall(empty buffer) = %+v, %v; want a size query", c, err)
	}
}

func TestLibprocCallRefused(t *testing.T) {
	buf := make([]byte, 8)
	for name, call := range map[string]func() (libprocCall, error){
		"negative pid":          func() (libprocCall, error) { return pidInfoCall(-1, procPIDListFDs, 0, buf) },
		"pid beyond a C int":    func() (libprocCall, error) { return pidInfoCall(math.MaxInt32+1, procPIDListFDs, 0, buf) },
		"flavor 0":              func() (libprocCall, error) { return pidInfoCall(1, 0, 0, buf) },
		"flavor beyond a C int": func() (libprocCall, error) { return pidInfoCall(1, math.MaxInt32+1, 0, buf) },
		"fd pid negative":       func() (libprocCall, error) { return pidFDInfoCall(-5, 3, procPIDFDSocketInfo, buf) },
		"negative fd":           func() (libprocCall, error) { return pidFDInfoCall(1, -1, procPIDFDSocketInfo, buf) },
		"fd beyond a C int":     func() (libprocCall, error) { return pidFDInfoCall(1, math.MaxInt32+1, procPIDFDSocketInfo, buf) },
		"fd flavor negative":    func() (libprocCall, error) { return pidFDInfoCall(1, 3, -3, buf) },
	} {
		if c, err := call(); !errors.Is(err, errLibprocArg) {
			t.Errorf("%s: %+v, %v; want the call refused", name, c, err)
		}
	}
	// A buffer whose length is no C int is refused by the same bound
	// (not allocated here: 2 GiB).
	for _, n := range []int{math.MaxInt32 + 1, -1} {
		if inCInt(n, 0) {
			t.Errorf("inCInt(%d) = true", n)
		}
	}
	if !inCInt(math.MaxInt32, 0) || !inCInt(0, 0) || inCInt(0, 1) {
		t.Error("inCInt bounds wrong")
	}
}

func TestLibprocResult(t *testing.T) {
	buf := make([]byte, 792)
	withBuf, _ := pidFDInfoCall(501, 7, procPIDFDSocketInfo, buf)
	query, _ := pidInfoCall(501, procPIDListFDs, 0, nil)
	const junk = 0xdeadbeef << 32 // neither ABI defines the high half of a C int's register
	errAny := errors.New("any error")
	tests := []struct {
		name  string
		call  libprocCall
		r     uint64
		errno syscall.Errno
		want  int
		err   error // nil: none
	}{
		{"bytes written", withBuf, 792, 0, 792, nil},
		{"bytes written, high half set", withBuf, junk | 792, 0, 792, nil},
		{"stale errno beside an answer", withBuf, 792, syscall.EINTR, 792, nil},
		{"size estimate beyond no buffer", query, 4096, 0, 4096, nil},
		{"a true empty answer", withBuf, 0xffffffff, 0, 0, nil},
		{"a true empty answer, high half set", withBuf, junk | 0xffffffff, 0, 0, nil},
		{"gone", withBuf, 0xffffffff, syscall.ESRCH, 0, syscall.ESRCH},
		{"another user's", query, junk | 0xffffffff, syscall.EPERM, 0, syscall.EPERM},
		{"descriptor closed", withBuf, 0xffffffff, syscall.EBADF, 0, syscall.EBADF},
		{"more than the buffer holds", withBuf, 793, 0, 0, errAny},
		{"negative", withBuf, 0xfffffffe, 0, 0, errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := tt.call.result(uintptr(tt.r), tt.errno)
			switch {
			case tt.err == nil && err != nil:
				t.Fatalf("result = %d, %v; want %d", n, err, tt.want)
			case tt.err == errAny && err == nil:
				t.Fatalf("result = %d; want an error", n)
			case tt.err != nil && tt.err != errAny && !errors.Is(err, tt.err):
				t.Fatalf("result = %d, %v; want %v", n, err, tt.err)
			}
			if n != tt.want {
				t.Errorf("result = %d, want %d", n, tt.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), tt.call.fn.String()) {
				t.Errorf("error %q does not name %v", err, tt.call.fn)
			}
		})
	}
}

// fakeLibproc answers as libproc does on a Mac (bsd/kern/proc_info.c of
// XNU): a null buffer gets an estimate (the count plus 20 entries), a
// buffer gets as many whole entries as fit, a failure 0 with errno; then
// as the trampolines hand it on, a 0 as -1, and junk in the high half.
type fakeLibproc struct {
	t      *testing.T
	nprocs int                   // what proc_listpids counts for its estimate
	pids   [][]int32             // its answers, one per fill (the last one repeats)
	fds    map[int][]fdEntry     // per pid
	socks  map[[2]int]socketSpec // per pid and fd
	errs   map[int]syscall.Errno // per pid
	fdErrs map[[2]int]syscall.Errno
	calls  []libprocCall
	fills  int
}

func (k *fakeLibproc) call(c libprocCall) (uintptr, syscall.Errno) {
	k.calls = append(k.calls, c)
	var out []byte
	if c.buf != nil {
		out = unsafe.Slice((*byte)(c.buf), c.size)
	}
	n, e := k.answer(c, out)
	r := uint64(uint32(int32(n))) | 0x5a5a<<32
	if n == 0 {
		r = 0xffffffff | 0x5a5a<<32
	}
	return uintptr(r), e
}

func (k *fakeLibproc) answer(c libprocCall, out []byte) (int, syscall.Errno) {
	switch c.fn {
	case fnListPIDs:
		if c.args != [3]uint64{procAllPIDs, 0, 0} {
			k.t.Errorf("proc_listpids%v: want PROC_ALL_PIDS, 0", c.args)
			return 0, syscall.EINVAL
		}
		if out == nil {
			return (k.nprocs + 20) * 4, 0
		}
		pids := k.pids[min(k.fills, len(k.pids)-1)]
		k.fills++
		n := 0
		for _, p := range pids {
			if n+4 > len(out) {
				break
			}
			binary.LittleEndian.PutUint32(out[n:], uint32(p))
			n += 4
		}
		return n, 0
	case fnPIDInfo:
		pid := int(c.args[0])
		if c.args[1] != procPIDListFDs || c.args[2] != 0 {
			k.t.Errorf("proc_pidinfo%v: want PROC_PIDLISTFDS, 0", c.args)
			return 0, syscall.EINVAL
		}
		if e := k.errs[pid]; e != 0 {
			return 0, e
		}
		fds := k.fds[pid]
		if out == nil {
			return (len(fds) + 20) * fdInfoSize, 0
		}
		n := 0
		for _, f := range fds {
			if n+fdInfoSize > len(out) {
				break
			}
			binary.LittleEndian.PutUint32(out[n:], uint32(f.fd))
			binary.LittleEndian.PutUint32(out[n+4:], f.fdType)
			n += fdInfoSize
		}
		return n, 0
	case fnPIDFDInfo:
		pid, fd := int(c.args[0]), int(c.args[1])
		if c.args[2] != procPIDFDSocketInfo {
			k.t.Errorf("proc_pidfdinfo%v: want PROC_PIDFDSOCKETINFO", c.args)
			return 0, syscall.EINVAL
		}
		if len(out) < socketFDInfoSize {
			return 0, syscall.ENOMEM
		}
		if e := k.fdErrs[[2]int{pid, fd}]; e != 0 {
			return 0, e
		}
		s, ok := k.socks[[2]int{pid, fd}]
		if !ok {
			return 0, syscall.EBADF
		}
		copy(out, socketFDInfo(s))
		return socketFDInfoSize, 0
	}
	k.t.Errorf("unknown function %v", c.fn)
	return 0, syscall.ENOSYS
}

func TestLibprocAllPIDs(t *testing.T) {
	// The list grows between the size query and the fill, and again: the
	// buffer grows until the answer leaves room to spare.
	var many []int32
	for i := int32(1); i <= 3000; i++ {
		many = append(many, i)
	}
	k := &fakeLibproc{t: t, nprocs: 10, pids: [][]int32{many, {1, 0, 501, 0}}}
	pids, err := libprocCaller(k.call).allPIDs()
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) != 2 || pids[0] != 1 || pids[1] != 501 {
		t.Errorf("allPIDs = %v; want [1 501] (zeros left out)", pids)
	}
	var sizes []int32
	for _, c := range k.calls {
		sizes = append(sizes, c.size)
	}
	// 0: the size query; 4096 (at least a page), too small for 3000
	// PIDs; then double that.
	if want := []int32{0, 4096, 8192}; !slices.Equal(sizes, want) {
		t.Errorf("buffer sizes %v, want %v", sizes, want)
	}
}

func TestLibprocSockets(t *testing.T) {
	const pid = 4242
	k := &fakeLibproc{t: t,
		fds: map[int][]fdEntry{
			pid:  {{0, 1}, {1, 1}, {3, proxFDTypeSocket}, {4, proxFDTypeSocket}, {5, proxFDTypeSocket}, {6, 6}},
			1000: nil, // no descriptors at all
		},
		socks: map[[2]int]socketSpec{
			{pid, 3}: {id: 0x1234, kind: sockInfoTCP, family: darwinAFInet, typ: darwinSockStream, lport: 8080, vflag: iniIPv4,
				laddr: netip.MustParseAddr("127.0.0.1"), tcpState: tsiStateListen},
			{pid, 4}: {id: 0x5678, kind: sockInfoIn, family: darwinAFInet6, typ: darwinSockDgram, lport: 5353, vflag: iniIPv6,
				laddr: netip.IPv6Unspecified()},
		},
		// fd 5 closed between the list and its info.
		fdErrs: map[[2]int]syscall.Errno{{pid, 5}: syscall.EBADF},
		errs:   map[int]syscall.Errno{1: syscall.EPERM, 99999: syscall.ESRCH},
	}
	lp := libprocCaller(k.call)
	socks, err := lp.sockets(pid)
	if err != nil {
		t.Fatal(err)
	}
	if len(socks) != 2 {
		t.Fatalf("sockets = %+v; want fds 3 and 4", socks)
	}
	if s := socks[3]; !s.listener || s.Proto != "tcp" || s.Port != 8080 || s.id != 0x1234 {
		t.Errorf("fd 3 = %+v; want the TCP listener on 8080", s)
	}
	if s := socks[4]; !s.listener || s.Proto != "udp" || s.Port != 5353 || s.Addr != netip.IPv6Unspecified() {
		t.Errorf("fd 4 = %+v; want the UDP socket bound to [::]:5353", s)
	}
	// Only the sockets were asked about, each with its own descriptor
	// and the whole struct socket_fdinfo.
	var asked []uint64
	for _, c := range k.calls {
		if c.fn == fnPIDFDInfo {
			asked = append(asked, c.args[1])
			if c.size != socketFDInfoSize {
				t.Errorf("proc_pidfdinfo buffer %d bytes, want %d", c.size, socketFDInfoSize)
			}
		}
	}
	if !slices.Equal(asked, []uint64{3, 4, 5}) {
		t.Errorf("proc_pidfdinfo asked about fds %v, want [3 4 5]", asked)
	}

	// A process with no descriptors: an empty answer, not an error.
	if socks, err := lp.sockets(1000); err != nil || len(socks) != 0 {
		t.Errorf("sockets(no descriptors) = %v, %v; want none and no error", socks, err)
	}
	// Failures come back with their errno.
	for p, want := range map[int]syscall.Errno{1: syscall.EPERM, 99999: syscall.ESRCH} {
		if _, err := lp.sockets(p); !errors.Is(err, want) {
			t.Errorf("sockets(%d) error %v, want %v", p, err, want)
		}
	}
	if _, err := lp.sockets(-1); !errors.Is(err, errLibprocArg) {
		t.Errorf("sockets(-1) error %v; want the call refused", err)
	}
}

func TestGrow(t *testing.T) {
	// An answer that fills the buffer may have been cut short: ask again
	// with twice the room.
	var sizes []int
	b, err := grow(100, func(buf []byte) (int, error) {
		sizes = append(sizes, len(buf))
		return min(len(buf), 10000), nil
	})
	if err != nil || len(b) != 10000 || !slices.Equal(sizes, []int{4096, 8192, 16384}) {
		t.Errorf("grow = %d bytes, %v after %v", len(b), err, sizes)
	}
	if _, err := grow(0, func(buf []byte) (int, error) { return len(buf), nil }); err == nil {
		t.Error("grow of a list that never fits: no error")
	}
	want := errors.New("refused")
	if _, err := grow(0, func([]byte) (int, error) { return 0, want }); err != want {
		t.Errorf("grow error %v, want %v", err, want)
	}
}

func FuzzLibprocResult(f *testing.F) {
	f.Add(uint64(792), uint32(0), 792)
	f.Add(uint64(0xffffffff), uint32(3), 0)
	f.Fuzz(func(t *testing.T, r uint64, e uint32, size int) {
		size = max(0, min(size, 1<<16))
		c, _ := pidInfoCall(1, procPIDListFDs, 0, make([]byte, size))
		n, err := c.result(uintptr(r), syscall.Errno(e))
		if err == nil && (n < 0 || (size > 0 && n > size)) {
			t.Errorf("result(%#x, %d) = %d with a buffer of %d", r, e, n, size)
		}
		if err != nil && n != 0 {
			t.Errorf("result(%#x, %d) = %d and %v", r, e, n, err)
		}
	})
}
