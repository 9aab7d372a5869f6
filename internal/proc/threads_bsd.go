//go:build unix && !linux && !darwin

package proc

// othersAlive is 0: nothing is known of threads here.
func (fs FS) othersAlive(int) int { return 0 }
