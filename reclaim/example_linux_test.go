package reclaim_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
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
	sup, err := supervisorOf(gone.Process.Pid)
	if err != nil {
		panic(err)
	}
	_ = gone.Wait()

	// A run id: 32 lowercase hex digits, random, the owner's secret.
	var b [16]byte
	_, _ = rand.Read(b[:])
	runID := hex.EncodeToString(b[:])
	cmd := exec.Command("/bin/sleep", "60")
	cmd.Env = (marker.Markers{}).Environ(nil, marker.Stamp{Name: "example", Supervisor: sup, RunID: runID})
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	sum, err := reclaim.Reclaim(context.Background(), reclaim.Filter{RunID: runID}, reclaim.Action{Grace: 5 * time.Second})
	if err != nil {
		panic(err)
	}
	for _, r := range sum.Results {
		for _, sent := range r.Signals {
			fmt.Println(r.Name, r.Verdict, r.Outcome, sent.Signal)
		}
	}
	_ = cmd.Wait()
	// Output: example stranded gone terminated
}

// supervisorOf names a live process as TETHER_SUPERVISOR does: its PID
// and its start time, field 22 of /proc/PID/stat, read from the last ')'.
func supervisorOf(pid int) (procid.ID, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procid.ID{}, err
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	start, err := strconv.ParseUint(fields[22-3], 10, 64)
	return procid.ID{PID: pid, StartTime: start}, err
}
