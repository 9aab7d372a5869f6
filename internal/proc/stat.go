package proc

import (
	"bytes"
	"fmt"
	"strconv"
)

// Stat is the part of /proc/PID/stat that identifies a process.
type Stat struct {
	PID     int
	Comm    string // the command name, as the kernel keeps it (at most 15 bytes)
	State   byte   // R, S, D, Z, T, t, X, I, ...
	PPID    int
	PGID    int // the process group
	Session int
	TTY     int    // tty_nr, the controlling terminal's device number; 0 for none
	Flags   uint64 // the kernel's PF_* flags
	// Threads is num_threads: 1 for a process with no thread but its
	// own, and for a zombie whose threads are all gone.
	Threads   int
	StartTime uint64 // starttime: clock ticks after boot
}

// pfKthread is the kernel's PF_KTHREAD flag.
const pfKthread = 0x00200000

// Zombie reports whether the process has exited and not yet been reaped.
func (s Stat) Zombie() bool { return s.State == 'Z' || s.State == 'X' }

// KernelThread reports whether the process is a kernel thread.
func (s Stat) KernelThread() bool { return s.Flags&pfKthread != 0 }

// ParseStat parses the contents of /proc/PID/stat. The command name sits
// between parentheses and may itself hold spaces and parentheses (a
// program can name itself "x) Z (y"), so the fields are read from the
// last ')' on.
func ParseStat(data []byte) (Stat, error) {
	var s Stat
	open := bytes.IndexByte(data, '(')
	shut := bytes.LastIndexByte(data, ')')
	if open < 0 || shut < open {
		return s, fmt.Errorf("parse stat %q: no (command name)", clip(data))
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(data[:open])))
	if err != nil {
		return s, fmt.Errorf("parse stat %q: bad pid: %w", clip(data), err)
	}
	s.PID = pid
	s.Comm = string(data[open+1 : shut])

	// fields[i] is field i+3 of proc(5).
	fields := bytes.Fields(data[shut+1:])
	if len(fields) < 20 {
		return s, fmt.Errorf("parse stat %q: %d fields after the command name, want at least 20", clip(data), len(fields))
	}
	if len(fields[0]) != 1 {
		return s, fmt.Errorf("parse stat %q: bad state %q", clip(data), fields[0])
	}
	s.State = fields[0][0]
	ints := []struct {
		field int
		dst   *int
	}{{4, &s.PPID}, {5, &s.PGID}, {6, &s.Session}, {7, &s.TTY}, {20, &s.Threads}}
	for _, f := range ints {
		v, err := strconv.ParseInt(string(fields[f.field-3]), 10, 64)
		if err != nil {
			return s, fmt.Errorf("parse stat %q: field %d: %w", clip(data), f.field, err)
		}
		*f.dst = int(v)
	}
	if s.Flags, err = strconv.ParseUint(string(fields[9-3]), 10, 64); err != nil {
		return s, fmt.Errorf("parse stat %q: field 9 (flags): %w", clip(data), err)
	}
	if s.StartTime, err = strconv.ParseUint(string(fields[22-3]), 10, 64); err != nil {
		return s, fmt.Errorf("parse stat %q: field 22 (starttime): %w", clip(data), err)
	}
	return s, nil
}

// clip keeps error messages about hostile input to one short line.
func clip(data []byte) []byte {
	const max = 80
	if len(data) > max {
		data = data[:max]
	}
	return bytes.TrimRight(data, "\n")
}
