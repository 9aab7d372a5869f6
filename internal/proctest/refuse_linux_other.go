//go:build linux && !amd64 && !arm64

package proctest

// No filter is built for the other architectures: Refusing skips the
// test, and the Refuse helper mode fails.
const (
	auditArch = 0
	x32       = false
)
