//go:build unix

// interleave runs commands in turn, one run of each per round, and
// prints each one's median wall time and its ratio to the last command.
// On a machine whose speed drifts from minute to minute (a VM beside
// busy neighbours), runs of one command after another, as hyperfine
// makes them, compare a command with its floor at different moments;
// rounds compare them at the same moment.
//
//	interleave ROUNDS 'CMD ARG...' ... 'FLOOR ARG...'
//
// A word of the form NAME=VALUE before a command's name goes into its
// environment. Each command's output goes to /dev/null. The first 10
// rounds warm up and are not counted. A command that cannot be started
// ends the run with exit status 2.
package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const warmup = 10

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: interleave ROUNDS 'CMD ARG...' ... 'FLOOR ARG...'")
		os.Exit(2)
	}
	rounds, err := strconv.Atoi(os.Args[1])
	if err != nil || rounds < 1 {
		fmt.Fprintf(os.Stderr, "interleave: rounds: want a count, got %q\n", os.Args[1])
		os.Exit(2)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "interleave:", err)
		os.Exit(2)
	}
	cmds := os.Args[2:]
	attrs := make([]*syscall.ProcAttr, len(cmds))
	argvs := make([][]string, len(cmds))
	for i, c := range cmds {
		words := strings.Fields(c)
		env := os.Environ()
		for len(words) > 1 && strings.Contains(words[0], "=") {
			env = append(env, words[0])
			words = words[1:]
		}
		argvs[i] = words
		attrs[i] = &syscall.ProcAttr{Env: env, Files: []uintptr{null.Fd(), null.Fd(), null.Fd()}}
	}
	times := make([][]time.Duration, len(cmds))
	for r := 0; r < warmup+rounds; r++ {
		for i := range cmds {
			start := time.Now()
			pid, err := syscall.ForkExec(argvs[i][0], argvs[i], attrs[i])
			if err != nil {
				fmt.Fprintf(os.Stderr, "interleave: %s: %v\n", cmds[i], err)
				os.Exit(2)
			}
			var ws syscall.WaitStatus
			for {
				if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
					break
				}
			}
			if r >= warmup {
				times[i] = append(times[i], time.Since(start))
			}
		}
	}
	floor := median(times[len(times)-1])
	for i, c := range cmds {
		m := median(times[i])
		fmt.Printf("%.2f\t%.2f\t%s\n", float64(m)/1e6, float64(m)/float64(floor), c)
	}
}

func median(ts []time.Duration) time.Duration {
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[len(s)/2]
}
