package registry

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tetherproc/tether/internal/proc"
)

// Record is what a run writes down about itself.
type Record struct {
	RunID string `json:"run_id"`
	Name  string `json:"name,omitempty"`
	// Supervisor and Watchdog are "PID:START" of the run's tether and
	// of its watchdog (empty without one).
	Supervisor ID `json:"supervisor"`
	Watchdog   ID `json:"watchdog,omitempty"`
	// Cgroup is the run's cgroup (of a contained run), as /proc shows it.
	Cgroup  string   `json:"cgroup,omitempty"`
	Command []string `json:"command"`
	// Stamp are the marker entries the run's command got: what a member
	// found by its record is judged by, as if its environment held them.
	Stamp []string `json:"stamp"`
	// Members are the run's tree as last written down.
	Members []ID `json:"members"`

	// Owner is the uid that owns the record's file (not read from it).
	Owner int `json:"-"`
}

// ID is a process by PID and start time, written "PID:START".
type ID proc.Member

// String formats id as "PID:START"; "" for the zero ID.
func (id ID) String() string {
	if id.PID == 0 {
		return ""
	}
	return strconv.Itoa(id.PID) + ":" + strconv.FormatUint(id.StartTime, 10)
}

// MarshalText writes id as "PID:START".
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText reads "PID:START" ("" is the zero ID).
func (id *ID) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*id = ID{}
		return nil
	}
	pid, start, ok := strings.Cut(string(b), ":")
	p, err1 := strconv.Atoi(pid)
	s, err2 := strconv.ParseUint(start, 10, 64)
	if !ok || err1 != nil || err2 != nil || p <= 0 {
		return fmt.Errorf("bad process %q: want PID:START", b)
	}
	*id = ID{PID: p, StartTime: s}
	return nil
}

// Has reports whether m is in the record's tree.
func (r Record) Has(m proc.Member) bool {
	for _, id := range r.Members {
		if id.PID == m.PID && id.StartTime == m.StartTime {
			return true
		}
	}
	return false
}

// Honours reports whether the record may name a process of real uid:
// its owner's, or any, for root's records (only root can write them).
func (r Record) Honours(uid int) bool { return r.Owner == 0 || r.Owner == uid }

// encode writes r as JSON by hand, in the field order and names of its
// tags: encoding/json's first use builds its encoders by reflection,
// which costs a run's start-up more than all the rest of the record.
// Reading (by check, ps and reclaim) uses encoding/json.
func (r Record) encode() []byte {
	b := make([]byte, 0, 256)
	b = append(b, `{"run_id":`...)
	b = appendString(b, r.RunID)
	if r.Name != "" {
		b = append(b, `,"name":`...)
		b = appendString(b, r.Name)
	}
	b = append(b, `,"supervisor":`...)
	b = appendString(b, r.Supervisor.String())
	if r.Watchdog.PID != 0 {
		b = append(b, `,"watchdog":`...)
		b = appendString(b, r.Watchdog.String())
	}
	if r.Cgroup != "" {
		b = append(b, `,"cgroup":`...)
		b = appendString(b, r.Cgroup)
	}
	b = append(b, `,"command":`...)
	b = appendStrings(b, r.Command)
	b = append(b, `,"stamp":`...)
	b = appendStrings(b, r.Stamp)
	members := make([]string, len(r.Members))
	for i, m := range r.Members {
		members[i] = m.String()
	}
	b = append(b, `,"members":`...)
	b = appendStrings(b, members)
	return append(b, "}\n"...)
}

func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendString appends s as a JSON string: invalid UTF-8 becomes
// U+FFFD byte by byte, as encoding/json writes it.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, c := range s {
		// Ranging over a string gives U+FFFD for each invalid byte.
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', byte(c))
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = utf8.AppendRune(b, c)
		}
	}
	return append(b, '"')
}
