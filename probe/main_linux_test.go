package probe_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/probe"
)

func TestMain(m *testing.M) {
	proctest.Helper(map[string]func(){
		// check runs probe.Check on PROCTEST_PID and prints the report:
		// a check made from another process, as another user.
		"check": func() {
			pid, _ := strconv.Atoi(os.Getenv("PROCTEST_PID"))
			r, err := probe.Check(pid, probe.Query{Name: os.Getenv("PROCTEST_NAME")})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			_ = json.NewEncoder(os.Stdout).Encode(r)
		},
	})
	os.Exit(proctest.Run(m))
}
