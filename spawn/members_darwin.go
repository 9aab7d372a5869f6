package spawn

import "os"

// memberFile is where the supervisor keeps the list of its tree for the
// watchdog: a temporary file, unlinked at once, that only the two share.
func memberFile() (*os.File, error) {
	f, err := os.CreateTemp("", "tether-members-")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(f.Name())
	return f, nil
}

// openedExe is how the watchdog's shell half starts the program: by its
// path, as macOS has no /proc/self/fd to exec a descriptor through.
func openedExe(path string) string { return path }
