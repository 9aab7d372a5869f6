//go:build !tetherportable

package e2e

// portable says the tests run the portable supervision path (the
// tetherportable build tag), which the binary under test is built with.
const portable = false
