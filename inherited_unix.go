//go:build unix

package main

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// inheritedFiles are the descriptors above 2 that tether's caller left it
// open (3>file, a jobserver's pipe, a socket handed over), as ExtraFiles:
// the command gets each at its number, a nil where tether has none. A
// plain fork passes them on untouched; a contained run's first process
// (a PID namespace's init, the step that enters the cgroup) takes the
// numbers after 2 for its own pipe, and would shadow them. Tether's own
// descriptors are close-on-exec, and are left out.
func inheritedFiles() []*os.File {
	ents, err := os.ReadDir("/dev/fd")
	if err != nil {
		return nil
	}
	var fds []int
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			fds = append(fds, fd)
		}
	}
	if len(fds) == 0 {
		return nil
	}
	top := fds[0]
	for _, fd := range fds {
		top = max(top, fd)
	}
	files := make([]*os.File, top-2)
	for _, fd := range fds {
		files[fd-3] = os.NewFile(uintptr(fd), "inherited "+strconv.Itoa(fd))
	}
	return files
}
