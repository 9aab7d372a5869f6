package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// buildTether builds the command from this checkout into a temporary
// directory with the release's tag, the VCS stamps on (whatever GOFLAGS
// says) and extra go build arguments, and returns the binary's path.
func buildTether(t *testing.T, extra ...string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	bin := filepath.Join(t.TempDir(), "tether")
	args := append([]string{"build", "-buildvcs=true", "-tags", "urfave_cli_no_docs", "-o", bin}, extra...)
	out, err := exec.Command(goBin, append(args, ".")...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return bin
}

// gitHead is the checkout's commit and whether it has changes not
// committed (as the go command decides: git status --porcelain says
// anything); it skips the test outside a git checkout.
func gitHead(t *testing.T) (commit string, dirty bool) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git: the go command stamps no commit without it")
	}
	out, err := exec.Command(git, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	status, err := exec.Command(git, "status", "--porcelain").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out)), len(bytes.TrimSpace(status)) > 0
}

func runVersion(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", bin, strings.Join(args, " "), err)
	}
	return string(out)
}

// A go build from the checkout names its commit, in full, and never says
// a bare (devel): the VCS stamps stand in for the release's.
func TestVersionOfCheckoutBuildNamesCommit(t *testing.T) {
	head, dirtyBefore := gitHead(t)
	bin := buildTether(t)
	_, dirtyAfter := gitHead(t)

	text := runVersion(t, bin, "--version")
	first, _, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(first, "tether version ") || first == "tether version (devel)" {
		t.Errorf("first line %q, want tether version and more than a bare (devel)", first)
	}
	if !strings.Contains(first, head[:12]) {
		t.Errorf("first line %q does not name commit %s (a go build's pseudo-version does)", first, head[:12])
	}
	if !strings.Contains(text, "\ncommit:   "+head) {
		t.Errorf("--version:\n%s\nwant a line commit: %s", text, head)
	}
	for _, want := range []string{"\nbuilt:    ", "(commit time", "\ngo:       " + runtime.Version() + "\n", "\nplatform: " + runtime.GOOS + "/" + runtime.GOARCH + "\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("--version:\n%s\nwant %q in it", text, want)
		}
	}
	if dirtyBefore == dirtyAfter && strings.Contains(text, head+"-dirty") != dirtyBefore {
		t.Errorf("--version:\n%s\nwant -dirty after the commit exactly when git status lists changes (%v)", text, dirtyBefore)
	}

	var v versionInfo
	raw := runVersion(t, bin, "--version", "--json")
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("--version --json: %v: %q", err, raw)
	}
	if v.Commit != head || v.DateOf != "commit" || v.Date == "" || v.Go != runtime.Version() || v.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("--version --json: %+v; want commit %s, the commit's date, %s, %s/%s", v, head, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
	if dirtyBefore == dirtyAfter && v.Modified != dirtyBefore {
		t.Errorf("--version --json: modified %v, want %v", v.Modified, dirtyBefore)
	}
}

// The values a release build stamps at link time win over the VCS stamps.
func TestVersionFromLinkTimeValues(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	bin := buildTether(t, "-ldflags", "-s -w -X main.buildVersion=1.2.3 -X main.buildCommit="+commit+
		" -X main.buildDate=2026-01-02T03:04:05Z -X main.buildModified=false")
	want := "tether version 1.2.3\ncommit:   " + commit + "\nbuilt:    2026-01-02T03:04:05Z\ngo:       " +
		runtime.Version() + "\nplatform: " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if got := runVersion(t, bin, "--version"); got != want {
		t.Errorf("--version:\n%s\nwant\n%s", got, want)
	}
	if got := runVersion(t, bin, "-v", "--json"); !strings.Contains(got, `"version":"1.2.3","commit":"`+commit+`","modified":false,"date":"2026-01-02T03:04:05Z","date_of":"build"`) {
		t.Errorf("-v --json: %s", got)
	}
}

// A release stamp of the checkout's own commit gets -dirty from the go
// command's VCS stamp when the tree has changes not committed (goreleaser
// stamps a snapshot before the first tag clean).
func TestVersionLinkTimeCommitDirtyFromVCS(t *testing.T) {
	head, dirtyBefore := gitHead(t)
	bin := buildTether(t, "-ldflags", "-X main.buildVersion=1.2.3 -X main.buildCommit="+head+" -X main.buildModified=false")
	_, dirtyAfter := gitHead(t)
	if dirtyBefore != dirtyAfter {
		t.Skip("the checkout changed while the test built it")
	}
	want := "\ncommit:   " + head + "\n"
	if dirtyBefore {
		want = "\ncommit:   " + head + "-dirty\n"
	}
	if got := runVersion(t, bin, "--version"); !strings.Contains(got, want) {
		t.Errorf("--version:\n%s\nwant %q in it (git status lists changes: %v)", got, want, dirtyBefore)
	}
}

func TestVersionShort(t *testing.T) {
	for _, c := range []struct {
		v    versionInfo
		want string
	}{
		{versionInfo{Version: "1.2.3", Commit: "0123456789abcdef"}, "1.2.3"},
		{versionInfo{Version: "(devel)"}, "(devel)"},
		{versionInfo{Version: "(devel)", Commit: "0123456789abcdef"}, "(devel) 0123456789ab"},
		{versionInfo{Version: "(devel)", Commit: "0123456789abcdef", Modified: true}, "(devel) 0123456789ab-dirty"},
		{versionInfo{Version: "v0.0.0-20260101000000-0123456789ab+dirty", Commit: "0123456789abcdef", Modified: true}, "v0.0.0-20260101000000-0123456789ab+dirty"},
	} {
		if got := c.v.short(); got != c.want {
			t.Errorf("%+v: short() = %q, want %q", c.v, got, c.want)
		}
	}
}

// --json at the top level goes with --version only.
func TestVersionJSONFlagPlacement(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"tether", "--version", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("--version --json: exit %d, stderr %q", code, stderr.String())
	}
	var v versionInfo
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil || v.Version == "" || v.Go != runtime.Version() {
		t.Errorf("--version --json: %q (%v)", stdout.String(), err)
	}
	for _, args := range [][]string{{"tether", "--json"}, {"tether", "--json", "doctor"}} {
		stdout.Reset()
		stderr.Reset()
		code := runMain(args, &stdout, &stderr)
		if code != exitUsage || stdout.Len() != 0 || !strings.Contains(stderr.String(), "--json") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and one line naming --json", args, code, stdout.String(), stderr.String(), exitUsage)
		}
	}
}
