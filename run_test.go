package main

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/reclaim"
)

// tether run --port refuses to start while a port is held after the
// reclaim of its holders, naming the first held port's holder, why it
// was left and the flag that would end it; or the selected holder that
// could not be ended; or the owner of a socket out of sight.
func TestPortRefusal(t *testing.T) {
	uid := 1000
	holder := func(pid int, v probe.Verdict) reclaim.Process {
		return reclaim.Process{
			Report: probe.Report{PID: pid, Verdict: v, Why: probe.Why{Kind: probe.NoMarker, Var: "TETHER", Want: "1"}, UID: &uid, Command: []string{"server", "--flag"},
				Supervisor: &probe.SupervisorReport{PID: 7, State: probe.SupervisorAlive}},
			Ports: []reclaim.Listener{{Proto: "tcp", Port: 8080}},
		}
	}
	ended := reclaim.Result{Process: holder(40, probe.Stranded), Selected: true, Outcome: reclaim.Gone, Signals: []reclaim.Sent{{Signal: syscall.SIGTERM}}}
	for _, tt := range []struct {
		name string
		sum  reclaim.Summary
		want string
	}{
		{"free", reclaim.Summary{Ports: []reclaim.PortState{{Port: 8080, Free: true}}}, ""},
		{"foreign", reclaim.Summary{
			Results: []reclaim.Result{{Process: holder(42, probe.Foreign), Outcome: reclaim.Skipped, Excluded: reclaim.ForeignHolder}},
			Ports:   []reclaim.PortState{{Port: 8080, Holders: []int{42}}},
		}, "tether run: port 8080 is held by PID 42 (server --flag): foreign: no TETHER=1 in its environment; --foreign would end it; nothing was signalled"},
		{"another user's foreign", reclaim.Summary{
			Results: []reclaim.Result{{Process: holder(42, probe.Foreign), Outcome: reclaim.Skipped, Excluded: reclaim.OtherUserHolder}},
			Ports:   []reclaim.PortState{{Port: 8080, Holders: []int{42}}},
		}, "tether run: port 8080 is held by PID 42 (server --flag): another user's (uid 1000); nothing was signalled"},
		{"supervised, another ended", reclaim.Summary{
			Results: []reclaim.Result{ended, {Process: holder(43, probe.Supervised), Outcome: reclaim.Skipped, Excluded: reclaim.SupervisedRun}},
			Ports:   []reclaim.PortState{{Port: 8080, Holders: []int{43}}},
		}, "tether run: port 8080 is held by PID 43 (server --flag): supervised by 7 (alive); --replace would end it through its tether; 1 other holder(s) ended"},
		{"survived", reclaim.Summary{
			Results: []reclaim.Result{{Process: holder(44, probe.Stranded), Selected: true, Outcome: reclaim.Survived, Cause: reclaim.Cause{Kind: reclaim.KillIgnored, After: time.Second}, Signals: []reclaim.Sent{{Signal: syscall.SIGTERM}, {Signal: syscall.SIGKILL}}}},
			Ports:   []reclaim.PortState{{Port: 8080, Holders: []int{44}}},
		}, "tether run: port 8080: holder PID 44 (server --flag) not ended: survived still alive 1s after SIGKILL"},
		{"out of sight", reclaim.Summary{
			Ports: []reclaim.PortState{{Port: 8080, Hidden: []int{0, 1000}}},
		}, "tether run: port 8080 is held by a process of uid 0, 1000 that tether cannot see; nothing was signalled"},
	} {
		err := portRefusal(tt.sum)
		var ec cli.ExitCoder
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v; want none", tt.name, err)
		case tt.want != "" && (!errors.As(err, &ec) || err.Error() != tt.want || ec.ExitCode() != exitFailed):
			t.Errorf("%s: %v; want exit %d with %q", tt.name, err, exitFailed, tt.want)
		}
	}
}
