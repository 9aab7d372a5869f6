package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// Stamped at link time by a release build (.goreleaser.yaml):
//
//	-X main.buildVersion=1.2.3 -X main.buildCommit=SHA -X main.buildDate=RFC3339
//	-X main.buildModified=false
//
// A go build or go install leaves them empty; the version then comes from
// the module and the commit from the VCS stamps the go command records.
var (
	buildVersion  string
	buildCommit   string
	buildDate     string
	buildModified string
)

// versionInfo is what tether --version says, and --version --json's
// object.
type versionInfo struct {
	// Version is the release's version (1.2.3), the module's for a go
	// install of a tagged module (v1.2.3), a pseudo-version for a go build
	// from a checkout (v0.0.0-DATE-COMMIT), or "(devel)" when the go
	// command recorded none.
	Version string `json:"version"`
	// Commit is the full revision it was built from; empty when unknown
	// (a build with -buildvcs=false, or outside a checkout).
	Commit string `json:"commit"`
	// Modified is true when the checkout had changes not committed.
	Modified bool `json:"modified"`
	// Date is when it was built (a release build), else the commit's time
	// (a go build records no build time); DateOf says which: "build",
	// "commit" or "" (unknown).
	Date   string `json:"date"`
	DateOf string `json:"date_of"`
	// Go is the toolchain's version, Platform GOOS/GOARCH.
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// readVersion gathers versionInfo from the link-time values, else from
// the build information the go command embeds.
func readVersion() versionInfo {
	v := versionInfo{
		Version:  buildVersion,
		Commit:   buildCommit,
		Modified: buildModified == "true",
		Date:     buildDate,
		Go:       runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
	if v.Date != "" {
		v.DateOf = "build"
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		if v.Version == "" {
			v.Version = "(devel)"
		}
		return v
	}
	if v.Version == "" {
		v.Version = info.Main.Version
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	if v.Commit != "" {
		// A release build's stamps win. The go command's own say more only
		// when it saw changes not committed at the same commit (goreleaser
		// stamps a snapshot before the first tag clean whatever the tree).
		if setting(info, "vcs.revision") == v.Commit && setting(info, "vcs.modified") == "true" {
			v.Modified = true
		}
		return v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		case "vcs.time":
			if v.Date == "" {
				v.Date, v.DateOf = s.Value, "commit"
			}
		}
	}
	return v
}

// setting is the value of one of the go command's build settings, or "".
func setting(info *debug.BuildInfo, key string) string {
	for _, s := range info.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// short is the version in one word or two, as --help's VERSION shows it:
// "(devel)" is never bare when the commit is known.
func (v versionInfo) short() string {
	if v.Version != "(devel)" || v.Commit == "" {
		return v.Version
	}
	return v.Version + " " + v.commit(12)
}

// commit is the revision cut to n characters (all of it for n <= 0), with
// -dirty when the checkout had changes not committed.
func (v versionInfo) commit(n int) string {
	c := v.Commit
	if c == "" {
		return "unknown"
	}
	if n > 0 && len(c) > n {
		c = c[:n]
	}
	if v.Modified {
		c += "-dirty"
	}
	return c
}

func (v versionInfo) writeText(w io.Writer) error {
	date := "unknown"
	switch v.DateOf {
	case "build":
		date = v.Date
	case "commit":
		date = v.Date + " (commit time; go build records no build time)"
	}
	_, err := fmt.Fprintf(w, "tether version %s\ncommit:   %s\nbuilt:    %s\ngo:       %s\nplatform: %s\n",
		v.short(), v.commit(0), date, v.Go, v.Platform)
	return err
}

func (v versionInfo) writeJSON(w io.Writer) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// jsonFlag is the top level's --json, which goes with --version only:
// every command that prints JSON has a --json of its own.
var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "with --version: print it as one JSON object"}

func init() {
	cli.VersionFlag = &cli.BoolFlag{
		Name:               "version",
		Aliases:            []string{"v"},
		Usage:              "print the version, commit, build date, Go version and platform (--json: as JSON)",
		DisableDefaultText: true,
	}
	// urfave/cli prints the version through this hook when --version
	// (-v) is given, before any command runs. Write errors are the
	// checked writer's to report.
	cli.VersionPrinter = func(c *cli.Context) {
		v := readVersion()
		if c.Bool(jsonFlag.Name) {
			_ = v.writeJSON(c.App.Writer)
			return
		}
		_ = v.writeText(c.App.Writer)
	}
}

// checkJSONFlag refuses the top level's --json without --version (which
// urfave/cli answers before this runs): tether --json check PID is a
// --json in the wrong place.
func checkJSONFlag(c *cli.Context) error {
	if c.Bool(jsonFlag.Name) {
		return usagef("tether: --json before a command goes with --version only (write it after the command: tether check --json PID)")
	}
	return nil
}
