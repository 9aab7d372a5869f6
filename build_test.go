package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// tether is built static (CGO_ENABLED=0), as every build command of the
// docs gives it: with cgo, package net (wait's HTTP and name lookups)
// and os/user link the C library,
// which makes the binary dynamic, costs about a millisecond of every
// start, and has glibc make its threads with clone3, which some
// container seccomp profiles refuse with EPERM: such a tether could not
// start at all. The standard library is used for what it does; the
// build is what keeps the binary static.
func TestStaticBuild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the binary's ELF is read on Linux")
	}
	bin := filepath.Join(t.TempDir(), "tether")
	build := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("tether built with CGO_ENABLED=0 has a %v segment: it is dynamically linked", p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("tether built with CGO_ENABLED=0 needs %v", libs)
	}
}
