//go:build linux

package proc

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// The files of /proc are read here with plain system calls rather than
// through os.File, which sets and clears non-blocking mode on each file
// and offers it to the runtime's network poller (which refuses /proc
// files): five system calls more per file, and the first offer starts the
// poller itself. On the paths a start-up or a scan of every process takes,
// that is most of the cost of a read.

// ReadPlain reads the whole file at path with plain system calls.
func ReadPlain(path string) ([]byte, error) {
	// Enough for a status file in one read, the longest of the usual ones.
	data, err := ReadInto(path, make([]byte, 0, 2048))
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return data, nil
}

// ReadShown reads the whole of a file the kernel renders in one piece on
// its first read (a seq_file of one record: a process's stat, status and
// cgroup, the table's stat and uptime): a read that leaves room in the
// buffer has given all of it, and the read that would say so is saved,
// one system call of two, on the paths that stat every process. Not for
// a file rendered a record at a time (mountinfo, children, net/tcp),
// whose reads stop short at each page.
func ReadShown(path string) ([]byte, error) {
	data, err := readShown(path, make([]byte, 0, 2048))
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return data, nil
}

// ReadInto reads a whole file into buf's storage, growing it as needed.
func ReadInto(path string, buf []byte) ([]byte, error) { return readFile(path, buf, toEnd) }

// readShown is ReadInto for a file rendered in one piece (ReadShown).
func readShown(path string, buf []byte) ([]byte, error) { return readFile(path, buf, shownWhole) }

// readEnd says when a read of a file has reached its end.
type readEnd int

const (
	// toEnd: when a read returns nothing, the only rule for any file.
	toEnd readEnd = iota
	// shownWhole: when a read leaves room in the buffer, for a file
	// rendered whole before its first read (ReadShown).
	shownWhole
	// shortRecords: when the first read leaves room both in the buffer
	// and in the kernel's page, for a file rendered a short record at
	// a time (a children list: "PID " each). The kernel fills a read
	// with records until the caller's buffer or its own page is full,
	// so a first read that left room in both had no record left to
	// give.
	shortRecords
)

// recordsRoom is the most a first read of a file of short records
// (shortRecords) can give with a record left unread: a page less the
// longest record, with room to spare.
const recordsRoom = 4096 - 64

// readFile reads path into buf's storage until its end, as end says.
func readFile(path string, buf []byte, end readEnd) ([]byte, error) {
	buf = buf[:cap(buf)]
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return buf[:0], err
	}
	defer unix.Close(fd)
	n := 0
	for {
		if n == len(buf) {
			buf = append(buf, make([]byte, max(len(buf), 512))...)
		}
		k, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return buf[:n], err
		}
		if k == 0 {
			return buf[:n], nil
		}
		room := n+k < len(buf)
		n += k
		if end == shownWhole && room || end == shortRecords && room && n == k && k <= recordsRoom {
			return buf[:n], nil
		}
	}
}

// NumericEntries lists the numeric names (PIDs, TIDs) of the directory
// at path.
func NumericEntries(path string) ([]int, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	return pidEntries(fd, 2048)
}

// pidEntries reads the numeric names of the directory open as fd, size
// bytes of entries at a time, until a read gives none: a read that
// leaves room is no end, as getdents64 stops short once the reading
// thread has a signal pending (Go's runtime sends its threads SIGURG).
func pidEntries(fd, size int) ([]int, error) {
	buf := make([]byte, size)
	pids := make([]int, 0, size/64)
	var names []string
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return pids, fmt.Errorf("read directory: %w", err)
		}
		if n <= 0 {
			return pids, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names[:0])
		for _, name := range names {
			if name[0] < '0' || name[0] > '9' {
				continue
			}
			if pid, err := strconv.Atoi(name); err == nil {
				pids = append(pids, pid)
			}
		}
	}
}
