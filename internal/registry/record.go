package registry

import (
	"strconv"
	"strings"

	"github.com/tetherproc/tether/marker"

	"github.com/tetherproc/tether/procid"
)

// Record is what a run writes down about itself.
type Record struct {
	RunID string `json:"run_id"`
	Name  string `json:"name,omitempty"`
	// Supervisor and Watchdog are "PID:START" of the run's tether and
	// of its watchdog (empty without one).
	Supervisor procid.ID `json:"supervisor"`
	Watchdog   procid.ID `json:"watchdog,omitempty"`
	// Forwards says the supervisor is a process of the run's own (a
	// tether run) that passes a TERM on to the run and ends it whole: the
	// one kind that a member may be ended through. A program's Host or
	// library Supervise is the program itself, which a TERM would end
	// with every other run it holds.
	Forwards bool `json:"forwards,omitempty"`
	// Cgroup is the directory of the run's cgroup (a contained run's):
	// for a person to read; a reader trusts only what /proc says of the
	// members.
	Cgroup  string   `json:"cgroup,omitempty"`
	Command []string `json:"command"`
	// Stamp are the marker entries the run's command got: what a member
	// found by its record is judged by, as if its environment held them.
	Stamp []string `json:"stamp"`
	// Members are the run's tree as last written down.
	Members []procid.ID `json:"members"`

	// Owner is the uid that owns the record's file (not read from it).
	Owner int `json:"-"`
}

// Has reports whether m is in the record's tree.
func (r Record) Has(m procid.ID) bool {
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

// pidnsVar starts the stamp's entry of the supervisor's PID namespace.
const pidnsVar = marker.PIDNamespaceVar + "="

// InNamespace reports whether the record's PIDs are to be read in PID
// namespace ns, the one the reader's /proc shows: a record written in
// another (a container sharing /tmp, a contained run's own) names other
// processes by the same numbers. Where either is unknown (0), it is
// taken as the same.
func (r Record) InNamespace(ns uint64) bool {
	for _, kv := range r.Stamp {
		if v, ok := strings.CutPrefix(kv, pidnsVar); ok {
			n, err := strconv.ParseUint(v, 10, 64)
			return err != nil || n == 0 || ns == 0 || n == ns
		}
	}
	return true
}
