// Package e2e holds the black-box tests of tether: they run the built
// binary the way its users do (from a shell, make, a terminal, as another
// user, under a process limit, in a PID namespace) and judge it by what a
// user sees: exit statuses, output, and which processes are left. They use
// nothing of the command line's own code, so that what they check is the
// program as shipped; the tests of its unexported code are in the root
// package.
//
// TestMain builds the binary under test from the module root (go build
// github.com/tetherproc/tether) into a directory every user can read, and
// the tests run it from there. Built with the tetherportable tag
// (go test -tags tetherportable ./e2e/), the tests build it with that tag
// too, so that the portable supervision path, macOS's, is what they drive
// on Linux; the tests of what only the full Linux path does skip there,
// saying so.
//
// tether runs the test binary itself as its command, in a helper mode of
// internal/proctest registered beside the tests that use it, and each
// test's processes carry its id, so that a leak check fails the test that
// leaves one behind.
package e2e
