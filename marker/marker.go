package marker

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
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
