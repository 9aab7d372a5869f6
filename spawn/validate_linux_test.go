package spawn_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/spawn"
)

// Each options type validates all of itself, not only the stamp it
// embeds; the zero value is valid; and the entry points refuse what
// Validate refuses, naming it, before anything starts.
func TestOptionsValidate(t *testing.T) {
	bad := marker.Markers{MarkerVar: "bad var"}
	for _, tt := range []struct {
		what string
		err  error
		want string // in the error; "" for valid
	}{
		{"Options zero", spawn.Options{}.Validate(), ""},
		{"ChildOptions zero", spawn.ChildOptions{}.Validate(), ""},
		{"ExecOptions zero", spawn.ExecOptions{}.Validate(), ""},
		{"Options name", spawn.Options{Stamp: marker.Stamp{Name: "a=b"}}.Validate(), "a=b"},
		{"Options markers", spawn.Options{Markers: bad}.Validate(), "bad var"},
		{"Options grace", spawn.Options{Grace: -1}.Validate(), "Grace -1ns is negative"},
		{"Options signal", spawn.Options{Signal: 99}.Validate(), "Signal 99"},
		{"Options contain", spawn.Options{Contain: "jail"}.Validate(), `Contain "jail"`},
		{"ChildOptions run id", spawn.ChildOptions{Stamp: marker.Stamp{RunID: "xyz"}}.Validate(), "xyz"},
		{"ChildOptions grace", spawn.ChildOptions{Grace: -1}.Validate(), "negative"},
		{"ChildOptions contain", spawn.ChildOptions{Contain: "jail"}.Validate(), `Contain "jail"`},
		{"ChildOptions pidns", spawn.ChildOptions{Contain: spawn.ContainPIDNamespace}.Validate(), "no PID namespace"},
		{"ChildOptions cgroup", spawn.ChildOptions{Contain: spawn.ContainCgroup}.Validate(), ""},
		{"ExecOptions markers", spawn.ExecOptions{Markers: bad}.Validate(), "bad var"},
	} {
		switch {
		case tt.want == "" && tt.err != nil:
			t.Errorf("%s: %v, want valid", tt.what, tt.err)
		case tt.want != "" && (tt.err == nil || !strings.Contains(tt.err.Error(), tt.want)):
			t.Errorf("%s: %v, want an error naming %q", tt.what, tt.err, tt.want)
		}
	}
	_, err := spawn.Supervise(context.Background(), exec.Command("/bin/true"), spawn.Options{Contain: "jail"})
	var se *spawn.StartError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "jail") {
		t.Errorf("Supervise with Contain jail: %v, want a StartError naming it", err)
	}
	h, err := spawn.NewHostWithoutWatchdog()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if _, err := h.Start(exec.Command("/bin/true"), spawn.ChildOptions{Signal: -3}); err == nil || !strings.Contains(err.Error(), "Signal -3") {
		t.Errorf("Host.Start with Signal -3: %v, want an error naming it", err)
	}
}
