package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tetherproc/tether/internal/proc"
)

// Hierarchy is where the cgroup v2 hierarchy is mounted.
type Hierarchy struct {
	Mount string // its mount point: /sys/fs/cgroup, /sys/fs/cgroup/unified
	Root  string // the group mounted there, as /proc/PID/cgroup names it
}

// ErrNotMounted says no cgroup v2 hierarchy is mounted where this process
// can see it.
var ErrNotMounted = errors.New("cgroup v2 is not mounted")

// Find finds the cgroup v2 hierarchy in the caller's mount table.
func Find(pfs proc.FS) (Hierarchy, error) {
	mounts, err := pfs.Mounts()
	if err != nil {
		return Hierarchy{}, fmt.Errorf("find cgroup v2: %w", err)
	}
	for _, m := range mounts {
		if m.FSType == "cgroup2" {
			return Hierarchy{Mount: m.Point, Root: m.Root}, nil
		}
	}
	return Hierarchy{}, ErrNotMounted
}

// Host is the hierarchy of this process's mount table, found once: the
// mounts it is read from do not change while tether runs.
var Host = sync.OnceValues(func() (Hierarchy, error) { return Find(proc.Host()) })

// Dir is the directory of the group at path (as /proc/PID/cgroup names
// it), or "" when that group lies outside the mounted part.
func (h Hierarchy) Dir(path string) string {
	root := strings.TrimSuffix(h.Root, "/")
	rel, ok := strings.CutPrefix(path, root)
	if !ok || rel != "" && rel[0] != '/' {
		return ""
	}
	return filepath.Join(h.Mount, rel)
}

// Of is the directory of pid's group.
func (h Hierarchy) Of(pfs proc.FS, pid int) (string, error) {
	path, err := pfs.Cgroup(pid)
	if err != nil {
		return "", err
	}
	dir := h.Dir(path)
	if dir == "" {
		return "", fmt.Errorf("cgroup %s of %d: outside the hierarchy mounted at %s", path, pid, h.Mount)
	}
	return dir, nil
}

// Runs lists the directories of every run's group in the hierarchy: the
// groups of runs whose supervisor is gone among them. The groups a run's
// members made below its own are not searched.
func (h Hierarchy) Runs() []string {
	var out []string
	_ = filepath.WalkDir(h.Mount, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fs.SkipDir
		}
		if !d.IsDir() {
			return nil
		}
		if _, _, ok := RunOf("/" + d.Name()); ok && path != h.Mount {
			out = append(out, path)
			return fs.SkipDir
		}
		return nil
	})
	return out
}

// exists reports whether dir is still there.
func exists(dir string) bool {
	_, err := os.Stat(dir)
	return err == nil
}
