package main

import (
	"github.com/tetherproc/tether/reclaim"
)

// reclaimReportJSON is tether reclaim --json (and tether free --json):
// a reclaimReport.
type reclaimReportJSON struct {
	DryRun  bool            `json:"dry_run"`
	Results []resultJSON    `json:"results"`
	Ports   []portStateJSON `json:"ports,omitempty"`
	Free    *bool           `json:"free,omitempty"`
}

// resultJSON is a reclaim.Result: the process, and what became of it.
// Its reason field is its verdict's; the kind of reason it was left out
// is not printed, its words (why) are.
type resultJSON struct {
	processJSON
	Selected bool     `json:"selected"`
	Outcome  string   `json:"outcome"`
	Why      string   `json:"why,omitempty"`
	Signals  []string `json:"signals,omitempty"` // each step's text: "TERM", "KILL (to its supervisor)", "stopped through Docker"
}

// portStateJSON is a reclaim.PortState.
type portStateJSON struct {
	Port    uint16        `json:"port"`
	Free    bool          `json:"free"`
	Holders []int         `json:"holders,omitempty"`
	Hidden  []int         `json:"hidden_owners,omitempty"`
	Left    []leftJSON    `json:"left,omitempty"`
	Again   []retakerJSON `json:"taken_again,omitempty"`
}

// leftJSON is a reclaim.LeftHolder.
type leftJSON struct {
	Why string `json:"why"`
	PID int    `json:"pid,omitempty"`
	UID *int   `json:"uid,omitempty"` // root's 0 is printed
}

// retakerJSON is a reclaim.Retaker.
type retakerJSON struct {
	PID           int          `json:"pid"`
	Command       []string     `json:"command,omitempty"`
	After         int64        `json:"after_ns"`
	Parent        int          `json:"parent_pid,omitempty"`
	ParentCommand []string     `json:"parent_command,omitempty"`
	Manager       *managerJSON `json:"manager,omitempty"`
}

// reclaimJSON is what tether reclaim --json (and tether free --json)
// prints of rep. Results is null, not [], when nothing was found, as
// it always was.
func reclaimJSON(rep reclaimReport) reclaimReportJSON {
	j := reclaimReportJSON{DryRun: rep.DryRun, Free: rep.Free}
	if rep.Results != nil {
		j.Results = make([]resultJSON, len(rep.Results))
		for i, r := range rep.Results {
			j.Results[i] = resultOf(r)
		}
	}
	for _, p := range rep.Ports {
		j.Ports = append(j.Ports, portStateOf(p))
	}
	return j
}

func resultOf(r reclaim.Result) resultJSON {
	j := resultJSON{processJSON: processOf(r.Process), Selected: r.Selected, Outcome: string(r.Outcome), Why: whyText(r, reclaimHints)}
	for _, s := range r.Signals {
		j.Signals = append(j.Signals, stepText(s))
	}
	return j
}

func portStateOf(p reclaim.PortState) portStateJSON {
	j := portStateJSON{Port: p.Port, Free: p.Free, Holders: p.Holders, Hidden: p.Hidden}
	for _, l := range p.Left {
		j.Left = append(j.Left, leftJSON{Why: string(l.Why), PID: l.PID, UID: l.UID})
	}
	for _, r := range p.Again {
		j.Again = append(j.Again, retakerJSON{
			PID: r.PID, Command: r.Command, After: int64(r.After), Parent: r.Parent,
			ParentCommand: r.ParentCommand, Manager: managerOf(r.Manager),
		})
	}
	return j
}
