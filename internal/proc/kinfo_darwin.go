package proc

import (
	"bytes"

	"golang.org/x/sys/unix"
)

// ProcessOfKinfo is what a kinfo_proc tells of a process. StartTime is
// the start time in microseconds since the epoch; UID the real uid, as
// on Linux.
func ProcessOfKinfo(k *unix.KinfoProc) Process {
	comm := k.Proc.P_comm[:]
	if i := bytes.IndexByte(comm, 0); i >= 0 {
		comm = comm[:i]
	}
	tv := k.Proc.P_starttime
	return Process{
		PID:       int(k.Proc.P_pid),
		PPID:      int(k.Eproc.Ppid),
		PGID:      int(k.Eproc.Pgid),
		UID:       int(k.Eproc.Pcred.P_ruid),
		StartTime: uint64(tv.Sec)*1e6 + uint64(tv.Usec),
		Zombie:    k.Proc.P_stat == sZomb,
		Comm:      string(comm),
	}
}
