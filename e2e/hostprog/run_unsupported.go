//go:build !linux

package main

import "github.com/tetherproc/tether/spawn"

func run([]string) error { return spawn.ErrUnsupported }
