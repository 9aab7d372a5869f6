package reclaim

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

var netTables = []struct{ file, proto string }{
	{"/proc/net/tcp", "tcp"}, {"/proc/net/tcp6", "tcp"},
	{"/proc/net/udp", "udp"}, {"/proc/net/udp6", "udp"},
}

// listeners reads the kernel's socket tables and returns the sockets that
// serve a port (listening TCP, unconnected UDP), by inode. With ports
// given, only those ports. A connected client's socket is not a listener,
// whatever its local port.
func listeners(ports map[uint16]bool) (map[uint64]Listener, error) {
	out := map[uint64]Listener{}
	for _, t := range netTables {
		data, err := os.ReadFile(t.file)
		if os.IsNotExist(err) {
			continue // no IPv6 in this kernel
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", t.file, err)
		}
		socks, err := ParseNetTable(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.file, err)
		}
		for _, s := range socks {
			serving := (t.proto == "tcp" && s.State == tcpListen) || (t.proto == "udp" && s.State == udpUnconnected)
			if !serving || s.Inode == 0 || (ports != nil && !ports[s.Port]) {
				continue
			}
			out[s.Inode] = Listener{Proto: t.proto, Addr: s.Addr.Unmap(), Port: s.Port, Inode: s.Inode}
		}
	}
	return out, nil
}

// socketInodes appends the inodes of pid's sockets to dst, using buf for
// the link targets.
func socketInodes(pid int, dst []uint64, buf []byte) []uint64 {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	f, err := os.Open(dir)
	if err != nil {
		return dst
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		k, err := unix.Readlink(dir+"/"+n, buf)
		if err != nil || k < 9 || !bytes.HasPrefix(buf[:k], []byte("socket:[")) || buf[k-1] != ']' {
			continue
		}
		if ino, err := strconv.ParseUint(string(buf[8:k-1]), 10, 64); err == nil {
			dst = append(dst, ino)
		}
	}
	return dst
}

// holders finds the processes that hold the listeners, reading the fd
// table of every process, two workers per core.
func holders(ls map[uint64]Listener) []Holder {
	if len(ls) == 0 {
		return nil
	}
	pids := allPIDs()
	var mu sync.Mutex
	var out []Holder
	parallel(len(pids), func(i int, buf *[]byte) {
		var inodes [16]uint64
		for _, ino := range socketInodes(pids[i], inodes[:0], *buf) {
			if l, ok := ls[ino]; ok {
				mu.Lock()
				out = append(out, Holder{PID: pids[i], Listener: l})
				mu.Unlock()
			}
		}
	})
	return out
}

// Holders returns the processes that serve any of the ports, over TCP or
// UDP, IPv4 or IPv6, in this network namespace.
func Holders(ports []uint16) ([]Holder, error) {
	want := map[uint16]bool{}
	for _, p := range ports {
		want[p] = true
	}
	ls, err := listeners(want)
	if err != nil {
		return nil, err
	}
	return holders(ls), nil
}

// listenersOf returns the listeners pid holds, given all listeners.
func listenersOf(pid int, ls map[uint64]Listener) []Listener {
	var out []Listener
	buf := make([]byte, 64)
	for _, ino := range socketInodes(pid, nil, buf) {
		if l, ok := ls[ino]; ok {
			out = append(out, l)
		}
	}
	return out
}
