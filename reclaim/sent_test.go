package reclaim_test

import (
	"encoding/json"
	"syscall"
	"testing"

	"github.com/tetherproc/tether/reclaim"
)

// A step's JSON is its text, as tether reclaim --json wrote the signals
// before they were values.
func TestSentText(t *testing.T) {
	r := reclaim.Result{Signals: []reclaim.Sent{
		{Signal: syscall.SIGTERM},
		{Signal: syscall.SIGKILL, ToSupervisor: true},
		{Engine: "podman"},
	}}
	b, err := json.Marshal(r.Signals)
	if err != nil {
		t.Fatal(err)
	}
	if want := `["TERM","KILL (to its supervisor)","stopped through podman"]`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}
