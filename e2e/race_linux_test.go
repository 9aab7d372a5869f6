//go:build race

package e2e

// raceEnabled says the tests are built with the race detector (go test
// -race), which the tests that drive only other programs skip under.
const raceEnabled = true
