package cgroup

import (
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/exitcode"
)

// EnterMain is the step EnterArg names: args are the descriptor of the
// group's cgroup.procs, open for writing (after the command's own: its
// standard three and any extra files), the command's path and its argv. It
// returns only on failure, with tether run's status for it: 125 when
// the group cannot be entered (the command is not run outside it), 126
// or 127 when the command cannot be executed.
func EnterMain(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "tether-enter: want FD PATH ARGV..., with cgroup.procs on FD (3 or more)")
		return 125
	}
	fd, err := strconv.Atoi(args[0])
	if err != nil || fd < 3 {
		fmt.Fprintln(os.Stderr, "tether-enter: want FD PATH ARGV..., with cgroup.procs on FD (3 or more)")
		return 125
	}
	// "0" is the writer itself.
	if _, err := unix.Write(fd, []byte("0")); err != nil {
		fmt.Fprintf(os.Stderr, "tether run: enter the run's cgroup: write cgroup.procs: %v\n", err)
		return 125
	}
	unix.Close(fd)
	err = syscall.Exec(args[1], args[2:], os.Environ())
	fmt.Fprintf(os.Stderr, "tether run: exec %s: %v\n", args[1], err)
	return exitcode.Exec(err)
}

// ProcsFile opens the group's cgroup.procs for writing, for a command
// that enters the group itself (EnterMain).
func (g *Group) ProcsFile() (*os.File, error) {
	fd, err := unix.Openat(g.FD(), "cgroup.procs", unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s/cgroup.procs: %w", g.Path(), err)
	}
	return os.NewFile(uintptr(fd), g.Path()+"/cgroup.procs"), nil
}
