package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// tether links neither package net nor os/user: either links the C
// library's resolver into a build with cgo (the default where a C
// compiler is), which makes the binary dynamic, costs every start, and
// has glibc make its threads with clone3, which some container seccomp
// profiles refuse with EPERM: such a tether could not start at all. Its
// HTTP (wait --http, a container engine's API) is spoken over sockets of
// its own.
func TestNoNetPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, bad := range []string{"net", "os/user", "net/http", "crypto/tls"} {
		if slices.Contains(deps, bad) {
			t.Errorf("tether's binary links %s", bad)
		}
	}
}
