package reclaim_test

import (
	"fmt"
	"os/exec"
	"time"

	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/reclaim"
)

// A process whose supervisor is gone is stranded; Reclaim finds it by its
// run id, checks it again through a pidfd and terminates it.
func ExampleReclaim() {
	// A supervisor that has come and gone.
	gone := exec.Command("/bin/true")
	if err := gone.Start(); err != nil {
		panic(err)
	}
	sup, err := probe.SupervisorOf(gone.Process.Pid)
	if err != nil {
		panic(err)
	}
	_ = gone.Wait()

	runID := probe.NewRunID()
	cmd := exec.Command("/bin/sleep", "60")
	cmd.Env = probe.DefaultMarkers.Environ(nil, probe.Stamp{Name: "example", Supervisor: sup, RunID: runID})
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	results, err := reclaim.Reclaim(reclaim.Options{RunID: runID}, reclaim.Action{Grace: 5 * time.Second})
	if err != nil {
		panic(err)
	}
	for _, r := range results {
		fmt.Println(r.Name, r.Verdict, r.Outcome, r.Signals)
	}
	_ = cmd.Wait()
	// Output: example stranded gone [TERM]
}
