package marker

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// The variables of the protocol.
const (
	Var             = "TETHER"            // holds "1" in every tethered process
	NameVar         = "TETHER_NAME"       // the run's name
	SupervisorVar   = "TETHER_SUPERVISOR" // PID:START of the process whose death strands it
	RunIDVar        = "TETHER_RUN_ID"     // the run's id: IsRunID
	PIDNamespaceVar = "TETHER_PIDNS"      // the PID namespace SupervisorVar's PID is read in
)

// RunIDLen is the length of a run id: 128 random bits in lowercase hex.
const RunIDLen = 32

// IsRunID reports whether id is a run id: exactly 32 lowercase hex
// digits, which is also a safe file and cgroup name.
func IsRunID(id string) bool {
	if len(id) != RunIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ID is a process by PID and start time, as the protocol writes it:
// "PID:START". START is compared only for equality.
type ID struct {
	PID       int
	StartTime uint64
}

// String formats id as "PID:START"; "" for the zero ID.
func (id ID) String() string {
	if id.PID == 0 {
		return ""
	}
	return strconv.Itoa(id.PID) + ":" + strconv.FormatUint(id.StartTime, 10)
}

// ParseID reads "PID:START": a positive PID and a start time.
func ParseID(s string) (ID, error) {
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

// NewRunID returns a fresh random run id. A run id must be unique and
// not to be guessed by another user (it is in the environment of every
// process of the run, which only its owner and root can read, and on no
// command line): the runtime's generator (ChaCha8, seeded from the
// kernel's randomness at each start) is enough, and crypto/rand would add
// a timer of its own to every start-up.
func NewRunID() string {
	var b [RunIDLen / 2]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	return hex.EncodeToString(b[:])
}
