//go:build !linux

package spawn

// InitMain fails: a contained run needs Linux.
func InitMain(args []string) int { return 125 }
