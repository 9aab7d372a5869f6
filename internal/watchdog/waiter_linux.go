//go:generate go run ./_asm

package watchdog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// The watchdog's first stage lives as long as the run and is started for
// every run, so it is as small as a process gets: a static program of a
// few hundred bytes (waiterCode) that reads the supervisor's pipe with
// one system call per byte and execs tether itself only if the
// supervisor dies. Against the shell that does the same (watchScript) it
// saves some 0.4 ms of CPU at each start and 1.7 MiB of resident memory
// while the command runs. It is held in a file in memory (memfd) and run
// through /proc/self/fd. Where there is no waiter for the architecture,
// or the kernel refuses to run it (vm.memfd_noexec), the shell does the
// job.

// errNoWaiter says that this architecture has no waiter.
var errNoWaiter = errors.New("no watchdog waiter for this architecture")

// waiterFD is the descriptor of the waiter, made once per process and
// kept (read-only, close-on-exec): -1 and the reason where there is none.
var waiterFD = sync.OnceValues(openWaiter)

func openWaiter() (int, error) {
	if len(waiterCode) == 0 {
		return -1, errNoWaiter
	}
	// MFD_EXEC since Linux 6.3, which may make it a condition; unknown
	// before.
	const flags = unix.MFD_CLOEXEC | unix.MFD_ALLOW_SEALING
	fd, err := unix.MemfdCreate("tether-watchdog", flags|unix.MFD_EXEC)
	if err == unix.EINVAL {
		fd, err = unix.MemfdCreate("tether-watchdog", flags)
	}
	if err != nil {
		return -1, fmt.Errorf("memfd_create: %w", err)
	}
	defer unix.Close(fd)
	elf := waiterELF(waiterMachine, waiterCode)
	for len(elf) > 0 {
		n, err := unix.Write(fd, elf)
		if err != nil {
			return -1, fmt.Errorf("write the waiter: %w", err)
		}
		elf = elf[n:]
	}
	// Sealed, no process of the same user can change it under later
	// runs; and a file open for writing cannot be executed (ETXTBSY),
	// so the waiter is kept open for reading only.
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE); err != nil {
		return -1, fmt.Errorf("seal the waiter: %w", err)
	}
	ro, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("reopen the waiter: %w", err)
	}
	return ro, nil
}

// waiterELF wraps code in a static little-endian ELF64 executable for
// machine: the headers and the code in one segment, readable and
// executable, loaded at 4 MiB and entered at the code's first byte, and a
// stack that is not executable.
func waiterELF(machine uint16, code []byte) []byte {
	const (
		base    = 0x400000
		ehsize  = 64
		phsize  = 56
		phnum   = 2
		headers = ehsize + phnum*phsize
	)
	le := binary.LittleEndian
	b := make([]byte, headers, headers+len(code))
	copy(b, "\x7fELF\x02\x01\x01") // 64-bit, little-endian, version 1, System V
	le.PutUint16(b[16:], 2)        // ET_EXEC
	le.PutUint16(b[18:], machine)
	le.PutUint32(b[20:], 1)            // EV_CURRENT
	le.PutUint64(b[24:], base+headers) // entry
	le.PutUint64(b[32:], ehsize)       // program headers' offset
	le.PutUint16(b[52:], ehsize)       // header size
	le.PutUint16(b[54:], phsize)       // program header size
	le.PutUint16(b[56:], phnum)
	load := b[ehsize:]
	le.PutUint32(load[0:], 1)                          // PT_LOAD
	le.PutUint32(load[4:], 5)                          // PF_R | PF_X
	le.PutUint64(load[16:], base)                      // virtual address
	le.PutUint64(load[24:], base)                      // physical address
	le.PutUint64(load[32:], uint64(headers+len(code))) // size in the file
	le.PutUint64(load[40:], uint64(headers+len(code))) // size in memory
	le.PutUint64(load[48:], 0x1000)                    // alignment
	stack := b[ehsize+phsize:]
	le.PutUint32(stack[0:], 0x6474e551) // PT_GNU_STACK
	le.PutUint32(stack[4:], 6)          // PF_R | PF_W
	return append(b, code...)
}
