package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// completionFiles are the committed scripts, at the module's root (the
// tests run in e2e/). The bash, zsh and PowerShell ones are the source:
// tether embeds them. The fish one is a copy of what tether generates from
// its commands and flags; regenerate it with
// TETHER_UPDATE_COMPLETIONS=1 go test -run TestCompletionScriptsCurrent ./e2e/
var completionFiles = map[string]string{
	"bash":       "../completions/tether.bash",
	"zsh":        "../completions/_tether",
	"fish":       "../completions/tether.fish",
	"powershell": "../completions/tether.ps1",
}

// tether completion SHELL prints the committed file for SHELL: for fish,
// the copy is current; for the embedded scripts, each shell gets its own
// file, unchanged.
func TestCompletionScriptsCurrent(t *testing.T) {
	for shell, file := range completionFiles {
		r := tether(t, nil, "completion", shell)
		if r.code != 0 || r.stdout == "" {
			t.Fatalf("completion %s: exit %d, stdout %q, stderr %q; want exit 0 and a script", shell, r.code, r.stdout, r.stderr)
		}
		if shell == "fish" && os.Getenv("TETHER_UPDATE_COMPLETIONS") != "" {
			if err := os.WriteFile(file, []byte(r.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		committed, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if string(committed) == r.stdout {
			continue
		}
		if shell == "fish" {
			t.Errorf("%s differs from `tether completion fish`; regenerate with TETHER_UPDATE_COMPLETIONS=1 go test -run TestCompletionScriptsCurrent ./e2e/", file)
		} else {
			t.Errorf("`tether completion %s` does not print %s, which it embeds: got %d bytes starting %q, want the file's %d bytes",
				shell, file, len(r.stdout), firstLine(r.stdout), len(committed))
		}
	}
	wantUsage(t, tether(t, nil, "completion", "tcsh"), `"tcsh"`)
	wantUsage(t, tether(t, nil, "completion"), "want one shell")
}

// The hand-written scripts are what each shell needs to load them, and
// ask tether for candidates with the flag urfave/cli answers: a script
// that asks with another flag offers nothing.
func TestCompletionScriptsShape(t *testing.T) {
	flag := "--" + cli.BashCompletionFlag.Names()[0]
	for shell, want := range map[string]struct{ first, register string }{
		"bash":       {"# bash completion for tether", "complete -o default -F _tether tether"},
		"zsh":        {"#compdef tether", "compdef _tether tether"}, // compinit reads the first line
		"powershell": {"# PowerShell completion for tether", "Register-ArgumentCompleter -Native -CommandName tether"},
	} {
		data, err := os.ReadFile(completionFiles[shell])
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		if got := firstLine(s); got != want.first {
			t.Errorf("%s: first line %q, want %q", completionFiles[shell], got, want.first)
		}
		if !strings.Contains(s, want.register) {
			t.Errorf("%s does not register the completer: want %q in it", completionFiles[shell], want.register)
		}
		if !strings.Contains(s, flag) {
			t.Errorf("%s does not ask tether with %s, the flag urfave/cli answers", completionFiles[shell], flag)
		}
	}
}

// bashComplete runs the committed bash script's completion function on
// words, the last one being completed, with tether on PATH.
func bashComplete(t *testing.T, words ...string) []string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	script := "source " + completionFiles["bash"] + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\n" +
		"COMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n_tether\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
	cmd := exec.Command(bash, "--norc", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(tetherBin)+":"+os.Getenv("PATH"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash completion of %q: %v", words, err)
	}
	return strings.Fields(string(out))
}

func TestBashCompletion(t *testing.T) {
	if got := bashComplete(t, "tether", "ch"); strings.Join(got, " ") != "check" {
		t.Errorf("tether ch<TAB>: %q, want [check]", got)
	}
	got := bashComplete(t, "tether", "run", "--gr")
	if strings.Join(got, " ") != "--grace" {
		t.Errorf("tether run --gr<TAB>: %q, want [--grace]", got)
	}
}

// TAB after "--" never starts the command, through the script or through
// the completion flag handed to tether directly.
func TestCompletionNeverRunsTheCommand(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	bashComplete(t, "tether", "run", "--", "/bin/sh", "-c", "touch "+marker, "")
	r := tether(t, nil, "run", "--", "/bin/sh", "-c", "touch "+marker, "--generate-bash-completion")
	if r.code != 0 {
		t.Errorf("run ... --generate-bash-completion: exit %d (stderr %q), want 0", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("completion started the command: want no command run after --, found " + marker)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
