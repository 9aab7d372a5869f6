package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/internal/proctest"
)

// modeTether is the test binary run as tether: its candidates come from
// newApp, the very definition the test compares them with.
var modeTether = proctest.Register("tether", func() {
	os.Exit(runMain(os.Args, os.Stdout, os.Stderr))
})

// bashComplete runs the committed bash script's completion function on
// words, the last one being completed, with the test binary on PATH as
// tether.
func bashComplete(t *testing.T, words ...string) []string {
	t.Helper()
	proctest.MaySkip(modeTether) // no bash here
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, "tether")); err != nil {
		t.Fatal(err)
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	script := "source completions/tether.bash\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\n" +
		"COMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n_tether\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
	cmd := exec.Command(bash, "--norc", "-c", script)
	cmd.Env = append(os.Environ(), proctest.Mode(modeTether), "PATH="+dir+":"+os.Getenv("PATH"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash completion of %q: %v", words, err)
	}
	return strings.Fields(string(out))
}

// Through the bash script, every command of the app is offered, and every
// visible flag of each command.
func TestBashCompletionOffersEveryCommandAndFlag(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	offered := func(words ...string) map[string]bool {
		m := map[string]bool{}
		for _, w := range bashComplete(t, words...) {
			m[w] = true
		}
		return m
	}
	commands := offered("tether", "")
	for _, c := range app.Commands {
		if c.Hidden {
			continue
		}
		if !commands[c.Name] {
			t.Errorf("tether <TAB> offers %v, want %q among them", commands, c.Name)
		}
		if len(c.Flags) == 0 {
			continue
		}
		flags := offered("tether", c.Name, "-")
		// "--", as a user starts a long flag, offers the long ones: it
		// must not read as the end of tether's flags.
		long := offered("tether", c.Name, "--")
		for _, f := range c.Flags {
			if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
				continue
			}
			for _, name := range f.Names() {
				want := "--" + name
				if len(name) == 1 {
					want = "-" + name
				}
				if !flags[want] {
					t.Errorf("tether %s -<TAB> offers %v, want %q among them", c.Name, flags, want)
				}
				if len(name) > 1 && !long[want] {
					t.Errorf("tether %s --<TAB> offers %v, want %q among them", c.Name, long, want)
				}
			}
		}
	}
}
