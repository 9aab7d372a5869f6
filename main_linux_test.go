package main

import (
	"os"
	"testing"

	"github.com/tetherproc/tether/internal/proctest"
)

// The tests here are of the command line's own code; those that drive
// the built binary as a user would are in e2e/.
func TestMain(m *testing.M) {
	proctest.Helper()
	os.Exit(proctest.Run(m))
}
