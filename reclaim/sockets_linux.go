package reclaim

import (
	"bytes"
	"encoding/binary"
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

// listeners returns the sockets that serve a port (listening TCP,
// unconnected UDP), by inode; with ports given, only those ports. A
// connected client's socket is not a listener, whatever its local port.
// It asks sock_diag netlink, and reads the /proc/net tables where that is
// not to be had.
func listeners(ports map[uint16]bool) (map[uint64]Listener, error) {
	if ls, err := diagListeners(ports); err == nil {
		return ls, nil
	}
	return tableListeners(ports)
}

// tableListeners is listeners from /proc/net/{tcp,tcp6,udp,udp6}.
func tableListeners(ports map[uint16]bool) (map[uint64]Listener, error) {
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
			out[s.Inode] = Listener{Proto: t.proto, Addr: s.Addr.Unmap(), Port: s.Port, UID: s.UID, Inode: s.Inode}
		}
	}
	return out, nil
}

// socketInodes appends the inodes of pid's sockets to dst. It works
// relative to an open /proc (procfd) and the process's fd directory, so
// that each lookup resolves one path component, not four; buf holds the
// directory entries.
func socketInodes(procfd, pid int, dst []uint64, buf []byte) []uint64 {
	dfd, err := unix.Openat(procfd, strconv.Itoa(pid)+"/fd", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return dst
	}
	defer unix.Close(dfd)
	for {
		n, err := unix.Getdents(dfd, buf)
		if err != nil || n <= 0 {
			return dst
		}
		for d := buf[:n]; len(d) >= 19; {
			// linux_dirent64: ino, off (8 each), reclen (2), type (1), name.
			reclen := int(binary.NativeEndian.Uint16(d[16:18]))
			if reclen < 19 || reclen > len(d) {
				return dst
			}
			name := d[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			d = d[reclen:]
			if len(name) == 0 || name[0] == '.' {
				continue
			}
			// stat follows the link to the open file itself: a
			// socket's mode and inode, with no path rendered (a
			// readlink would render "/dev/pts/0" and the like).
			var st unix.Stat_t
			if unix.Fstatat(dfd, string(name), &st, 0) == nil && st.Mode&unix.S_IFMT == unix.S_IFSOCK {
				dst = append(dst, st.Ino)
			}
		}
	}
}

// holders finds the processes that hold the listeners, reading the fd
// table of every process, two workers per core.
func holders(ls map[uint64]Listener) []Holder {
	if len(ls) == 0 {
		return nil
	}
	pids := allPIDs()
	procfd, err := unix.Open("/proc", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(procfd)
	var mu sync.Mutex
	var out []Holder
	parallel(len(pids), func(i int, buf *[]byte) {
		var inodes [16]uint64
		for _, ino := range socketInodes(procfd, pids[i], inodes[:0], *buf) {
			if l, ok := ls[ino]; ok {
				mu.Lock()
				out = append(out, Holder{PID: pids[i], Listener: l})
				mu.Unlock()
			}
		}
	})
	return out
}

// listenersOf returns the listeners pid holds, given all listeners.
func listenersOf(pid int, ls map[uint64]Listener) []Listener {
	procfd, err := unix.Open("/proc", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(procfd)
	var out []Listener
	for _, ino := range socketInodes(procfd, pid, nil, make([]byte, 4096)) {
		if l, ok := ls[ino]; ok {
			out = append(out, l)
		}
	}
	return out
}
