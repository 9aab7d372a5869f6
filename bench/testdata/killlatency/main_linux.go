//go:build linux

// Command killlatency measures how long the tree of tether run outlives
// tether when tether is killed with SIGKILL: the time until its command
// (the direct child, ended by its parent-death signal) and a setsid
// grandchild (ended by the watchdog) are gone. It prints p50, p99 and the
// maximum over -n trials as a markdown table.
//
// It is a child subreaper, so that the orphans it makes are its own to
// reap, and it signals only the tether processes it started.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	tether := flag.String("tether", "tether", "the tether binary")
	n := flag.Int("n", 200, "trials")
	grace := flag.Duration("grace", time.Second, "tether run --grace")
	flag.Parse()
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fail(err)
	}
	var child, grandchild []time.Duration
	for i := 0; i < *n; i++ {
		c, g, err := trial(*tether, *grace)
		if err != nil {
			fail(fmt.Errorf("trial %d: %w", i, err))
		}
		child = append(child, c)
		grandchild = append(grandchild, g)
	}
	fmt.Printf("| SIGKILL of tether run (grace %v) until gone, %d trials | p50 | p99 | max |\n|---|---:|---:|---:|\n", *grace, *n)
	row("command (parent-death signal)", child)
	row("setsid grandchild (watchdog)", grandchild)
}

func trial(tether string, grace time.Duration) (time.Duration, time.Duration, error) {
	cmd := exec.Command(tether, "run", "--grace", grace.String(), "--",
		"/bin/sh", "-c", `setsid sleep 1000 & echo $! $$; exec sleep 1000`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return 0, 0, fmt.Errorf("read pids: %w", err)
	}
	f := strings.Fields(line)
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("pids: %q", line)
	}
	gpid, _ := strconv.Atoi(f[0])
	cpid, _ := strconv.Atoi(f[1])
	cfd, err1 := unix.PidfdOpen(cpid, 0)
	gfd, err2 := unix.PidfdOpen(gpid, 0)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("pidfd: %v %v", err1, err2)
	}
	defer unix.Close(cfd)
	defer unix.Close(gfd)
	start := time.Now()
	if err := cmd.Process.Kill(); err != nil {
		return 0, 0, err
	}
	c, g := gone(cfd, start), gone(gfd, start)
	reapAll()
	return c, g, nil
}

// gone waits (up to a minute) for the process behind the pidfd to exit.
func gone(fd int, start time.Time) time.Duration {
	for {
		_, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 60_000)
		if err != unix.EINTR {
			return time.Since(start)
		}
	}
}

// reapAll waits for every child, tether and the orphans re-parented here
// (its watchdog, its command, the grandchild), until none is left.
func reapAll() {
	for {
		var ws unix.WaitStatus
		if _, err := unix.Wait4(-1, &ws, 0, nil); err == unix.ECHILD {
			return
		}
	}
}

func row(what string, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	p := func(q float64) time.Duration { return ds[min(len(ds)-1, int(q*float64(len(ds))))] }
	fmt.Printf("| %s | %s | %s | %s |\n", what, ms(p(0.50)), ms(p(0.99)), ms(ds[len(ds)-1]))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "killlatency:", err)
	os.Exit(1)
}
