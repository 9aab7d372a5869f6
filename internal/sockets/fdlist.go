package sockets

import (
	"encoding/binary"
	"fmt"
)

// fdEntry is one struct proc_fdinfo.
type fdEntry struct {
	fd     int32
	fdType uint32
}

// parseFDList parses the answer of PROC_PIDLISTFDS: n bytes of 8-byte
// entries.
func parseFDList(b []byte) ([]fdEntry, error) {
	if len(b)%fdInfoSize != 0 {
		return nil, fmt.Errorf("proc_pidinfo(PROC_PIDLISTFDS): %d bytes, not a multiple of %d", len(b), fdInfoSize)
	}
	out := make([]fdEntry, 0, len(b)/fdInfoSize)
	for i := 0; i+fdInfoSize <= len(b); i += fdInfoSize {
		out = append(out, fdEntry{
			fd:     int32(binary.LittleEndian.Uint32(b[i:])),
			fdType: binary.LittleEndian.Uint32(b[i+4:]),
		})
	}
	return out, nil
}
