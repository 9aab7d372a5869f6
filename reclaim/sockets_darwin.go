package reclaim

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/tetherproc/tether/internal/lsof"
	"github.com/tetherproc/tether/internal/proc"
)

// procInfo calls proc_info(2): callnum, pid, flavor, arg, and the buffer
// it fills; it returns the bytes written.
func procInfo(call, pid, flavor int, arg uint64, buf []byte) (int, error) {
	var p unsafe.Pointer
	if len(buf) > 0 {
		p = unsafe.Pointer(&buf[0])
	}
	r, _, e := syscall.Syscall6(syscall.SYS_PROC_INFO, uintptr(call), uintptr(pid), uintptr(flavor), uintptr(arg), uintptr(p), uintptr(len(buf)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
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
	return nil, errors.New("proc_info: the list kept growing")
}

// darwinPIDs lists every process (PROC_ALL_PIDS).
func darwinPIDs() ([]int, error) {
	est, _ := procInfo(procInfoCallListPIDs, procAllPIDs, 0, 0, nil)
	b, err := grow(est*2, func(buf []byte) (int, error) {
		return procInfo(procInfoCallListPIDs, procAllPIDs, 0, 0, buf)
	})
	if err != nil {
		return nil, fmt.Errorf("proc_listpids: %w", err)
	}
	var pids []int
	for i := 0; i+4 <= len(b); i += 4 {
		if pid := int(int32(uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24)); pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// sockets lists the sockets pid holds, by descriptor.
func sockets(pid int) (map[int32]darwinSocket, error) {
	est, _ := procInfo(procInfoCallPIDInfo, pid, procPIDListFDs, 0, nil)
	b, err := grow(est, func(buf []byte) (int, error) {
		return procInfo(procInfoCallPIDInfo, pid, procPIDListFDs, 0, buf)
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
		if n, err := procInfo(procInfoCallFDInfo, pid, procPIDFDSocketInfo, uint64(f.fd), info); err != nil || n != socketFDInfoSize {
			continue // closed meanwhile
		}
		if s, err := parseSocketInfo(info); err == nil {
			out[f.fd] = s
		}
	}
	return out, nil
}

// listeners returns the sockets that serve a port, by socket; with ports
// given, only those ports. macOS has no table of sockets: every process's
// descriptors are read (those of other users only as root). Where the
// proc_info system call is refused even for tether itself, lsof answers.
func listeners(ports map[uint16]bool) (map[uint64]Listener, error) {
	if _, err := sockets(os.Getpid()); err != nil {
		return lsofListeners(ports)
	}
	pids, err := darwinPIDs()
	if err != nil {
		return nil, err
	}
	out := map[uint64]Listener{}
	for _, pid := range pids {
		socks, err := sockets(pid)
		if err != nil {
			continue // another user's, or gone
		}
		for _, s := range socks {
			if s.listener && (ports == nil || ports[s.Port]) {
				// The socket's owner is its holder's user.
				if p, err := proc.Host().Process(pid); err == nil {
					s.UID = p.UID
				}
				out[s.id] = s.Listener
			}
		}
	}
	return out, nil
}

// holders finds the processes that hold the listeners: every process's,
// or only those of pids when given.
func holders(ls map[uint64]Listener, pids []int) ([]holder, error) {
	if len(ls) == 0 || (pids != nil && len(pids) == 0) {
		return nil, nil
	}
	var out []holder
	var kernel bool
	for key, l := range ls {
		if pid, ok := lsofHolder(key); ok {
			out = append(out, holder{pid: pid, listener: l})
		} else {
			kernel = true
		}
	}
	if !kernel {
		return out, nil
	}
	if pids == nil {
		var err error
		if pids, err = darwinPIDs(); err != nil {
			return nil, err
		}
	}
	for _, pid := range pids {
		socks, err := sockets(pid)
		if err != nil {
			continue
		}
		for _, s := range socks {
			if l, ok := ls[s.id]; ok {
				out = append(out, holder{pid: pid, listener: l})
			}
		}
	}
	return out, nil
}

// lsofListeners is listeners from lsof's field output (lsof is always
// there on macOS, in /usr/sbin).
func lsofListeners(ports map[uint16]bool) (map[uint64]Listener, error) {
	out := map[uint64]Listener{}
	for _, q := range []struct{ proto, sel string }{{"tcp", "-iTCP"}, {"udp", "-iUDP"}} {
		args := []string{"-nP", "-F", "pcfunt"}
		if len(ports) == 0 {
			args = append(args, q.sel)
		}
		for p := range ports {
			args = append(args, q.sel+":"+strconv.Itoa(int(p)))
		}
		if q.proto == "tcp" {
			args = append(args, "-sTCP:LISTEN")
		}
		data, err := lsof.Output(args...)
		if err != nil {
			return nil, err
		}
		for k, l := range parseLsof(data, q.proto) {
			if ports == nil || ports[l.Port] {
				out[k] = l
			}
		}
	}
	return out, nil
}
