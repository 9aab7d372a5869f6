package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/exitcode"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/spawn"
)

func run(args []string) error {
	if (len(args) == 2 || len(args) == 3 && args[2] == "nowatchdog") && args[0] == "tree" {
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return err
		}
		return tree(n)
	}
	if len(args) == 3 && args[0] == "execs" {
		n, err := strconv.Atoi(args[2])
		if err != nil {
			return err
		}
		return execs(args[1], n)
	}
	return errors.New("usage: hostprog tree N [nowatchdog] | hostprog execs host|supervise|supervise-sole N")
}

// family is each child's command: a grandchild in a session of its own,
// and one that writes its title over its arguments and environment.
const family = `setsid sleep 300 &
perl -e '$0 = "hostprog-renamed-" . ("x" x 64); sleep 300' &
wait`

func tree(n int) error {
	h, err := spawn.NewHost()
	if err != nil {
		return err
	}
	children := map[string]*spawn.Child{}
	for i := 0; i < n; i++ {
		c, err := h.Start(exec.Command("/bin/sh", "-c", family), spawn.ChildOptions{Stamp: marker.Stamp{Name: "hostprog-child"}, Grace: 2 * time.Second})
		if err != nil {
			return err
		}
		children[c.RunID()] = c
		go func() { _ = c.Cmd.Wait() }()
		fmt.Printf("child %d %s\n", c.Cmd.Process.Pid, c.RunID())
	}
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		word, arg, _ := strings.Cut(in.Text(), " ")
		switch word {
		case "stop":
			c := children[arg]
			if c == nil {
				fmt.Printf("stopped %s no such child\n", arg)
				continue
			}
			fmt.Printf("stopped %s %v\n", arg, c.Stop(context.Background()))
		case "close":
			return h.Close(context.Background())
		}
	}
	return h.Close(context.Background())
}

// report is what execs found.
type report struct {
	Runs      int      `json:"runs"`      // exec.Command calls made
	Wrong     int      `json:"wrong"`     // exited with another status than 7
	ECHILD    int      `json:"echild"`    // Wait failed with ECHILD
	Signalled int      `json:"signalled"` // killed by a signal
	Errors    []string `json:"errors,omitempty"`
	// SleepAlive: the program's own sleep still ran after the children
	// were stopped (or Supervise returned).
	SleepAlive bool `json:"sleep_alive"`
	// Zombies are children of the process left unreaped at the end
	// (the sleep aside): an orphan of the run's tree that no one reaped.
	Zombies int `json:"zombies"`
	// The process's state before and after.
	SubreaperBefore int    `json:"subreaper_before"`
	SubreaperAfter  int    `json:"subreaper_after"`
	SigIgnBefore    string `json:"sigign_before"`
	SigIgnAfter     string `json:"sigign_after"`
	SigCgtBefore    string `json:"sigcgt_before"`
	SigCgtAfter     string `json:"sigcgt_after"`
	Status          int    `json:"status"` // Supervise's
}

func execs(api string, n int) error {
	var rep report
	rep.SubreaperBefore = subreaper()
	rep.SigIgnBefore, rep.SigCgtBefore = sigState()
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		return err
	}
	sleepDone := make(chan error, 1)
	go func() { sleepDone <- sleep.Wait() }()
	stopChildren, err := churnChildren(api, &rep)
	if err != nil {
		return err
	}
	runCalls(n, &rep)
	if err := stopChildren(); err != nil {
		return err
	}
	select {
	case err := <-sleepDone:
		rep.Errors = append(rep.Errors, fmt.Sprintf("own sleep ended: %v", err))
	case <-time.After(100 * time.Millisecond):
		rep.SleepAlive = true
	}
	rep.Zombies = zombies()
	rep.SubreaperAfter = subreaper()
	rep.SigIgnAfter, rep.SigCgtAfter = sigState()
	if rep.SleepAlive {
		_ = sleep.Process.Kill()
		<-sleepDone
	}
	return json.NewEncoder(os.Stdout).Encode(rep)
}

// churnChildren starts, through api, children that leave orphans
// (double forks, a session of their own) and exit while the calls run;
// stop ends them.
func churnChildren(api string, rep *report) (stop func() error, err error) {
	const churn = `for i in 1 2 3 4 5 6 7 8; do (sleep 0.0$i &); setsid sleep 0.05 & done; sleep 3`
	switch api {
	case "host":
		h, err := spawn.NewHost()
		if err != nil {
			return nil, err
		}
		var cs []*spawn.Child
		for i := 0; i < 3; i++ {
			c, err := h.Start(exec.Command("/bin/sh", "-c", churn), spawn.ChildOptions{Stamp: marker.Stamp{Name: "hostprog-churn"}})
			if err != nil {
				return nil, err
			}
			cs = append(cs, c)
		}
		return func() error {
			for _, c := range cs[1:] {
				if err := c.Stop(context.Background()); err != nil {
					return err
				}
				_ = c.Cmd.Wait()
			}
			err := h.Close(context.Background())
			_ = cs[0].Cmd.Wait()
			return err
		}, nil
	case "supervise", "supervise-sole":
		done := make(chan error, 1)
		supervised := exec.Command("/bin/sh", "-c", churn)
		supervised.Stdin, supervised.Stdout, supervised.Stderr = os.Stdin, os.Stdout, os.Stderr
		go func() {
			ended, err := spawn.Supervise(context.Background(), supervised, spawn.Options{Stamp: marker.Stamp{Name: "hostprog-supervised"}, OutliveParent: true, SoleReaper: api == "supervise-sole"})
			rep.Status = exitcode.Of(ended.Code, ended.Signal)
			done <- err
		}()
		return func() error { return <-done }, nil
	}
	return nil, fmt.Errorf("execs: unknown API %q", api)
}

// runCalls makes n concurrent exec.Command(...).Run() calls of the
// program's own, each of which must see its own exit status, 7.
func runCalls(n int, rep *report) {
	var wrong, echild, signalled atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := exec.Command("/bin/sh", "-c", "exit 7").Run()
			var ee *exec.ExitError
			switch {
			case errors.As(err, &ee) && ee.ExitCode() == 7:
				return
			case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled():
				signalled.Add(1)
			case errors.Is(err, syscall.ECHILD):
				echild.Add(1)
			default:
				wrong.Add(1)
			}
			mu.Lock()
			if len(rep.Errors) < 10 {
				rep.Errors = append(rep.Errors, fmt.Sprint(err))
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	rep.Runs, rep.Wrong, rep.ECHILD, rep.Signalled = n, int(wrong.Load()), int(echild.Load()), int(signalled.Load())
}

// subreaper is the process's child-subreaper flag.
func subreaper() int {
	var v int32
	_ = unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&v)), 0, 0, 0)
	return int(v)
}

// sigState is the process's ignored and caught signals, from
// /proc/self/status.
func sigState() (ign, cgt string) {
	data, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(data), "\n") {
		k, v, _ := strings.Cut(line, ":")
		switch k {
		case "SigIgn":
			ign = strings.TrimSpace(v)
		case "SigCgt":
			cgt = strings.TrimSpace(v)
		}
	}
	return ign, cgt
}

// zombies counts the process's children that exited and are not reaped.
func zombies() int {
	n := 0
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, t := range tasks {
		data, _ := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		for _, pid := range strings.Fields(string(data)) {
			stat, _ := os.ReadFile("/proc/" + pid + "/stat")
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				n++
			}
		}
	}
	return n
}
