package readiness_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherproc/tether/internal/proctest"
)

func TestMain(m *testing.M) {
	proctest.Helper()
	code := proctest.Run(m)
	if httpsPath != "" && httpsErr == nil {
		os.RemoveAll(filepath.Dir(httpsPath))
	}
	os.Exit(code)
}
