//go:build linux || darwin

package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// rootDir is root's directory: /run is root's and cleared at boot (a
// variable for the tests alone).
var rootDir = "/run/tether"

// writeDir is where the calling user's runs write their records:
// $XDG_RUNTIME_DIR/tether, else tether-UID in the temporary directory;
// root's in /run/tether.
func writeDir(uid int) string {
	if uid == 0 {
		return rootDir
	}
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "tether")
	}
	return filepath.Join(os.TempDir(), "tether-"+strconv.Itoa(uid))
}

// Dirs are the directories where the records of uid may be. A reader
// reads them all, since the same user's runs may have been started with
// and without XDG_RUNTIME_DIR (a login shell, cron, sudo -u).
func Dirs(uid int) []string {
	if uid == 0 {
		return []string{rootDir}
	}
	var dirs []string
	if uid == os.Getuid() {
		dirs = append(dirs, writeDir(uid))
	}
	for _, d := range []string{
		filepath.Join("/run/user", strconv.Itoa(uid), "tether"),
		filepath.Join(os.TempDir(), "tether-"+strconv.Itoa(uid)),
	} {
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// ErrRefused says a directory or record is not to be trusted: not the
// user's own, open to others, or a symlink.
var ErrRefused = errors.New("refused")

// openDir opens dir, which must be a real directory (not a symlink),
// owned by uid and 0700. With create, a missing one is made (its parent
// must exist).
func openDir(dir string, uid int, create bool) (int, error) {
	if create {
		if err := unix.Mkdir(dir, 0o700); err != nil && err != unix.EEXIST {
			return -1, fmt.Errorf("run records: create %s: %w", dir, err)
		}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case err == unix.ELOOP || err == unix.ENOTDIR:
		return -1, fmt.Errorf("run records: %s is not a directory (a symlink?): %w", dir, ErrRefused)
	case err == unix.EACCES:
		return -1, fmt.Errorf("run records: %s is not open to uid %d (someone else's?): %w", dir, os.Getuid(), ErrRefused)
	case err != nil:
		return -1, fmt.Errorf("run records: open %s: %w", dir, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("run records: stat %s: %w", dir, err)
	}
	if int(st.Uid) != uid || st.Mode&0o777 != 0o700 {
		unix.Close(fd)
		return -1, fmt.Errorf("run records: %s is uid %d's, mode %04o; want uid %d's, 0700: %w", dir, st.Uid, st.Mode&0o777, uid, ErrRefused)
	}
	return fd, nil
}
