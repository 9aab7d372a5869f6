package spawn_test

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/tetherproc/tether/spawn"
)

// A Go program starts a tethered child: it carries the markers, runs in
// its own process group, and gets SIGTERM if the program dies.
func ExampleStart() {
	cmd := exec.Command("/bin/sh", "-c", `echo "TETHER=$TETHER TETHER_NAME=$TETHER_NAME"`)
	var out strings.Builder
	cmd.Stdout = &out
	if _, err := spawn.Prepare(cmd, spawn.Config{Name: "web"}); err != nil {
		panic(err)
	}
	if err := spawn.Start(cmd); err != nil {
		panic(err)
	}
	if err := cmd.Wait(); err != nil {
		panic(err)
	}
	fmt.Print(out.String())
	// Output: TETHER=1 TETHER_NAME=web
}
