//go:build !unix

package reclaim

// openFilesLimit cannot be read here.
func openFilesLimit() (int, bool) { return 0, false }
