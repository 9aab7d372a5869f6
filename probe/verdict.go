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
