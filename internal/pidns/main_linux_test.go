package pidns

import (
	"os"
	"testing"

	"github.com/tetherproc/tether/internal/proctest"
)

func TestMain(m *testing.M) {
	// The test binary stands in for tether as the namespace's init.
	if len(os.Args) > 1 && os.Args[1] == Arg {
		os.Exit(Main(os.Args[2:]))
	}
	proctest.Helper()
	os.Exit(proctest.Run(m))
}
