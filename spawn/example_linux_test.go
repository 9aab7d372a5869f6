package spawn_test

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/tetherproc/tether/spawn"
)

// A Go program starts a tethered child: it carries the markers, runs in
// its own process group, and gets SIGTERM if the program dies. The
// command stays the program's to wait for.
func ExampleStart() {
	cmd := exec.Command("/bin/sh", "-c", `echo "TETHER=$TETHER TETHER_NAME=$TETHER_NAME"`)
	var out strings.Builder
	cmd.Stdout = &out
	if _, err := spawn.Start(cmd, spawn.Config{Name: "web"}); err != nil {
		panic(err)
	}
	if err := cmd.Wait(); err != nil {
		panic(err)
	}
	fmt.Print(out.String())
	// Output: TETHER=1 TETHER_NAME=web
}

// Supervise is tether run: the command runs in the calling process's
// care, and what it leaves behind (here a background sleep, in a session
// of its own) is ended when it exits. The status is the command's own.
// A program that sets Reexec calls spawn.Init first in its main.
func ExampleSupervise() {
	status, err := spawn.Supervise(spawn.Config{
		Name:  "build",
		Args:  []string{"/bin/sh", "-c", "setsid sleep 60 & exit 3"},
		Grace: 0, // KILL right after TERM for what is left
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("exit status", status)
	// Output: exit status 3
}
