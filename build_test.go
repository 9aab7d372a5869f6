package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// tether is built static (CGO_ENABLED=0), as every build and install
// command the docs give builds it: with cgo, package net (linked for
// wait's HTTP and name lookups) brings in the C library's resolver, which
// makes the binary dynamic, costs every start, and has glibc make its
// threads with clone3, which some container seccomp profiles refuse with
// EPERM: such a tether could not start at all. Built so, the binary has
// no program interpreter and needs no shared library.
func TestStaticBuild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("an ELF binary is checked on Linux")
	}
	bin := filepath.Join(t.TempDir(), "tether")
	cmd := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("go build: %v: %s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("CGO_ENABLED=0 go build: the binary has a program interpreter (dynamic)")
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("CGO_ENABLED=0 go build: the binary needs %v (%v)", libs, err)
	}
}
