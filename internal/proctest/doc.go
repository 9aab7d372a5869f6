// Package proctest starts real helper processes for tether's tests and
// makes sure none of them outlives the test that started it.
//
// It follows the re-exec pattern of os/exec's own tests: the test binary
// runs itself in a helper mode chosen by an environment variable, each mode
// registered (Register) in the test file that uses it. Each helper carries
// the id of the test that started it, so that the leak check at cleanup
// can find every process of that test, descendants included, by reading
// the real /proc; it signals only those processes, which the test started.
package proctest
