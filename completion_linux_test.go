package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var completionFiles = map[string]string{
	"bash":       "completions/tether.bash",
	"zsh":        "completions/_tether",
	"fish":       "completions/tether.fish",
	"powershell": "completions/tether.ps1",
}

// The committed scripts are what the binary prints. Regenerate them with
// TETHER_UPDATE_COMPLETIONS=1 go test -run TestCompletionScriptsCurrent .
func TestCompletionScriptsCurrent(t *testing.T) {
	for shell, file := range completionFiles {
		r := tether(t, nil, "completion", shell)
		if r.code != 0 || r.stdout == "" {
			t.Fatalf("completion %s: %+v", shell, r)
		}
		if os.Getenv("TETHER_UPDATE_COMPLETIONS") != "" {
			if err := os.WriteFile(file, []byte(r.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		committed, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (regenerate with TETHER_UPDATE_COMPLETIONS=1)", err)
		}
		if string(committed) != r.stdout {
			t.Errorf("%s differs from `tether completion %s`; regenerate with TETHER_UPDATE_COMPLETIONS=1 go test -run TestCompletionScriptsCurrent .", file, shell)
		}
	}
	wantUsage(t, tether(t, nil, "completion", "tcsh"), `"tcsh"`)
	wantUsage(t, tether(t, nil, "completion"), "want one shell")
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
	script := "source completions/tether.bash\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\n" +
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
		t.Errorf("tether ch<TAB>: %q", got)
	}
	got := bashComplete(t, "tether", "run", "--gr")
	if strings.Join(got, " ") != "--grace" {
		t.Errorf("tether run --gr<TAB>: %q", got)
	}
}

// TAB after "--" never starts the command, through the script or through
// the completion flag handed to tether directly.
func TestCompletionNeverRunsTheCommand(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	bashComplete(t, "tether", "run", "--", "/bin/sh", "-c", "touch "+marker, "")
	r := tether(t, nil, "run", "--", "/bin/sh", "-c", "touch "+marker, "--generate-bash-completion")
	if r.code != 0 {
		t.Errorf("%+v", r)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("completion started the command")
	}
}
