package reclaim_test

import (
	"encoding/json"
	"slices"
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
	// And back: a report read by a program gives the same values.
	var back []reclaim.Sent
	if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back, r.Signals) {
		t.Errorf("read back: %v, %v; want %v", back, err, r.Signals)
	}
	if err := json.Unmarshal([]byte(`["HUGS"]`), &back); err == nil {
		t.Error(`read back ["HUGS"]: no error`)
	}
}

// A holder out of sight keeps its owner in the JSON, root's uid 0 too.
func TestLeftHolderRootUID(t *testing.T) {
	root := 0
	b, err := json.Marshal(reclaim.LeftHolder{Why: reclaim.LeftOutOfSight, UID: &root})
	if err != nil || string(b) != `{"why":"out-of-sight","uid":0}` {
		t.Errorf("JSON %s, %v; want the uid 0 kept", b, err)
	}
}
