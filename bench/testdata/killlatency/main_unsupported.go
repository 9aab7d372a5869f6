//go:build !linux

// Command killlatency needs Linux: pidfds and a child subreaper.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "killlatency: Linux only (pidfds, child subreaper)")
	os.Exit(2)
}
