package sockets

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
)

// Files lists the pipes and sockets pid holds (the files a process talks
// to another through): its fd directory read once, each descriptor
// stat'ed through its link, and a pipe's open flags from its fdinfo.
func Files(fs proc.FS, pid int) ([]File, error) {
	dir := fs.Root() + "/" + strconv.Itoa(pid)
	names, err := readNames(dir + "/fd")
	if err != nil {
		return nil, err
	}
	var out []File
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(dir+"/fd/"+name, &st) != nil {
			continue // closed meanwhile
		}
		f := File{FD: fd, Dev: st.Dev, Ino: st.Ino}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFSOCK:
			f.Socket, f.Reads, f.Writes = true, true, true
		case unix.S_IFIFO:
			data, err := os.ReadFile(dir + "/fdinfo/" + name)
			if err != nil {
				continue
			}
			flags, err := ParseFdinfoFlags(data)
			if err != nil {
				return nil, fmt.Errorf("process %d fd %d: %w", pid, fd, err)
			}
			acc := flags & unix.O_ACCMODE
			f.Pipe, f.Reads, f.Writes = true, acc != unix.O_WRONLY, acc != unix.O_RDONLY
		default:
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

// readNames lists a directory's entries by name.
func readNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}
