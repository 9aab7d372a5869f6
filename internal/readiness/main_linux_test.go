package readiness_test

import (
	"os"
	"testing"

	"github.com/tetherproc/tether/internal/proctest"
)

func TestMain(m *testing.M) {
	proctest.Helper()
	os.Exit(proctest.Run(m))
}
