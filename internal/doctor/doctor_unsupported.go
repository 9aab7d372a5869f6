//go:build !linux && !darwin

package doctor

import "runtime"

// Check has nothing to try here: tether's kernel features are Linux's.
func Check() []Finding {
	return []Finding{{Name: "platform", Detail: "tether run needs Linux's parent-death signal; " + runtime.GOOS + " has none"}}
}
