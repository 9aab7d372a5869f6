package procid

import (
	"fmt"
	"strconv"
	"strings"
)

// ID is a process by PID and start time. The zero ID is no process.
type ID struct {
	PID       int    // as seen in the PID namespace it was read in
	StartTime uint64 // only compared for equality
}

// String formats id as "PID:START"; "" for the zero ID.
func (id ID) String() string {
	if id.PID == 0 {
		return ""
	}
	return strconv.Itoa(id.PID) + ":" + strconv.FormatUint(id.StartTime, 10)
}

// IsZero reports whether id names no process.
func (id ID) IsZero() bool { return id == ID{} }

// Parse reads "PID:START": a positive PID and a start time.
func Parse(s string) (ID, error) {
	p, st, ok := strings.Cut(s, ":")
	if !ok {
		return ID{}, fmt.Errorf("%q: want PID:START", s)
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return ID{}, fmt.Errorf("%q: bad PID %q", s, p)
	}
	start, err := strconv.ParseUint(st, 10, 64)
	if err != nil {
		return ID{}, fmt.Errorf("%q: bad start time %q", s, st)
	}
	return ID{PID: pid, StartTime: start}, nil
}

// MarshalText writes id as "PID:START" ("" for the zero ID).
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText reads "PID:START"; "" is the zero ID.
func (id *ID) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*id = ID{}
		return nil
	}
	v, err := Parse(string(b))
	if err != nil {
		return fmt.Errorf("bad process %w", err)
	}
	*id = v
	return nil
}
