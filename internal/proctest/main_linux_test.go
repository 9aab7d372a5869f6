package proctest

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	Helper()
	os.Exit(Run(m))
}
