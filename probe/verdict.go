package probe

// Verdict is what Check concludes about a PID.
type Verdict string

// The verdicts.
const (
	Supervised   Verdict = "supervised"   // tethered, its supervisor alive
	Stranded     Verdict = "stranded"     // tethered, its supervisor gone
	Foreign      Verdict = "foreign"      // alive, not tethered or another name
	Zombie       Verdict = "zombie"       // exited, not yet reaped
	Gone         Verdict = "gone"         // no such process
	Unverifiable Verdict = "unverifiable" // alive, environment unreadable
)

// Tethered reports whether the verdict is one of the two tethered ones.
func (v Verdict) Tethered() bool { return v == Supervised || v == Stranded }

// SupervisorState is what became of the process named by TETHER_SUPERVISOR.
type SupervisorState string

// The supervisor states. Only Alive and Unknown keep a process supervised;
// Unknown does so because a guess must never make a process reclaimable.
const (
	SupervisorAlive   SupervisorState = "alive"
	SupervisorGone    SupervisorState = "gone"
	SupervisorReused  SupervisorState = "reused" // the PID now has another start time
	SupervisorZombie  SupervisorState = "zombie"
	SupervisorUnknown SupervisorState = "unknown"
)
