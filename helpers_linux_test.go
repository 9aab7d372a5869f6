package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proctest"
)

// served keeps the serve helper's sockets open.
var served []io.Closer

// helperModes are what the test binary does when tether runs it as a
// command: the re-exec pattern of os/exec's own tests.
var helperModes = map[string]func(){
	// sleep blocks until killed; stdin is ignored so that only tether
	// can end it.
	"sleep": forever,
	// ignore-term blocks and ignores SIGTERM: only KILL ends it.
	"ignore-term": func() {
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		forever()
	},
	// tree starts a process of each hard kind — same group, setsid,
	// ignoring TERM, double-forked — prints "ready", then exits with
	// PROCTEST_STATUS or, with PROCTEST_STAY set, stays.
	"tree": func() {
		for _, mode := range []string{"sleep", "setsid-sleep", "ignore-term", "double-fork"} {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), proctest.ModeVar+"="+mode)
			if mode == "setsid-sleep" {
				cmd.Env = append(os.Environ(), proctest.ModeVar+"=sleep")
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			}
			if err := cmd.Start(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			if mode == "double-fork" {
				_ = cmd.Wait()
			}
		}
		fmt.Println("ready")
		if os.Getenv("PROCTEST_STAY") != "" {
			forever()
		}
		code, _ := strconv.Atoi(os.Getenv("PROCTEST_STATUS"))
		os.Exit(code)
	},
	// double-fork starts a setsid sleeper and exits: the sleeper is
	// orphaned at once.
	"double-fork": func() {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), proctest.ModeVar+"=sleep")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		_ = cmd.Start()
	},
	// signals prints the name of every signal tether forwards as it
	// arrives; SIGTERM ends it with status 0.
	"signals": func() {
		ch := make(chan os.Signal, 16)
		signal.Notify(ch, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
			syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH)
		fmt.Println("ready")
		for s := range ch {
			fmt.Println(unix.SignalName(s.(syscall.Signal)))
			if s == syscall.SIGTERM {
				os.Exit(0)
			}
		}
	},
	// listen listens on a loopback TCP port, prints it and waits for
	// stdin to close.
	"listen": func() {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(l.Addr().(*net.TCPAddr).Port)
		_, _ = io.Copy(io.Discard, os.Stdin)
	},
	// self prints what the command sees of itself as JSON.
	"self": func() {
		env := map[string]string{}
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "TETHER") {
				env[k] = v
			}
		}
		fg, _ := unix.IoctlGetInt(0, unix.TIOCGPGRP)
		_ = json.NewEncoder(os.Stdout).Encode(map[string]any{
			"pid": os.Getpid(), "ppid": os.Getppid(), "pgrp": unix.Getpgrp(), "fg": fg,
			"env": env, "args": os.Args[1:],
		})
		if os.Getenv("PROCTEST_STAY") != "" {
			forever()
		}
	},
	// catchall prints "ready", then the name of every signal it gets
	// that it can catch; TERM ends it with status 0.
	"catchall": func() {
		ch := make(chan os.Signal, 64)
		var all []os.Signal
		for s := syscall.Signal(1); s <= 64; s++ {
			switch s {
			case syscall.SIGKILL, syscall.SIGSTOP, syscall.SIGCHLD, syscall.SIGURG, syscall.SIGPROF, 32, 33:
				continue
			}
			all = append(all, s)
		}
		signal.Notify(ch, all...)
		fmt.Println("ready")
		for s := range ch {
			fmt.Println(sigName(s.(syscall.Signal)))
			if s == syscall.SIGTERM {
				os.Exit(0)
			}
		}
	},
	// sigstate prints its SigIgn and SigBlk masks as /proc shows them,
	// then stays.
	"sigstate": func() {
		data, _ := os.ReadFile("/proc/self/status")
		var fields []string
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && (k == "SigIgn" || k == "SigBlk") {
				fields = append(fields, k+"="+strings.TrimSpace(v))
			}
		}
		fmt.Println(strings.Join(fields, " "))
		forever()
	},
	// renamers starts three descendants that no environment scan can
	// find, each in a session of its own: one that wrote its title over
	// its environment (setproctitle), one started with an empty
	// environment, and, where there is perl, one renamed with $0. It
	// prints their PIDs on one line, then exits with PROCTEST_STATUS or,
	// with PROCTEST_STAY set, stays.
	"renamers": func() {
		var cmds []*exec.Cmd
		retitled := exec.Command(os.Args[0])
		retitled.Env = append(os.Environ(), proctest.ModeVar+"="+proctest.Retitle, "PROCTEST_STAY=1", "PROCTEST_TITLE=srv: worker")
		cleared := exec.Command("/bin/sh", "-c", "echo $$; exec sleep 120")
		cleared.Env = []string{}
		cmds = append(cmds, retitled, cleared)
		if perl, err := exec.LookPath("perl"); err == nil {
			cmds = append(cmds, exec.Command(perl, "-e", `$0 = "srv"; $| = 1; print "$$\n"; sleep 120`))
		}
		var pids []string
		for _, cmd := range cmds {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			out, err := cmd.StdoutPipe()
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			if err := cmd.Start(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			pids = append(pids, strings.TrimSpace(line))
		}
		fmt.Println(strings.Join(pids, " "))
		if os.Getenv("PROCTEST_STAY") != "" {
			forever()
		}
		code, _ := strconv.Atoi(os.Getenv("PROCTEST_STATUS"))
		os.Exit(code)
	},
	// serve waits PROCTEST_DELAY, then exits 1 if PROCTEST_CRASH is set,
	// or else listens on each of PROCTEST_LISTEN ("tcp4:127.0.0.1:PORT",
	// "tcp6:[::1]:PORT", "udp4:127.0.0.1:PORT", space-separated), prints
	// "listening" and stays.
	"serve": func() {
		delay, _ := time.ParseDuration(os.Getenv("PROCTEST_DELAY"))
		time.Sleep(delay)
		if os.Getenv("PROCTEST_CRASH") != "" {
			os.Exit(1)
		}
		for _, spec := range strings.Fields(os.Getenv("PROCTEST_LISTEN")) {
			network, addr, _ := strings.Cut(spec, ":")
			var c io.Closer
			var err error
			if strings.HasPrefix(network, "udp") {
				c, err = net.ListenPacket(network, addr)
			} else {
				c, err = net.Listen(network, addr)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			// Held, so that no finalizer closes it.
			served = append(served, c)
		}
		fmt.Println("listening")
		forever()
	},
	// orphans makes 20 orphans that exit at once, then waits: tether,
	// as subreaper, must reap them all.
	"orphans": func() {
		for i := 0; i < 20; i++ {
			cmd := exec.Command("/bin/sh", "-c", "/bin/true & exit 0")
			_ = cmd.Run()
		}
		fmt.Println("ready")
		forever()
	},
	// caller runs tether with the arguments in PROCTEST_ARGS (one per
	// line), prints tether's PID, and waits: the test kills it.
	"caller": func() {
		args := strings.Split(os.Getenv("PROCTEST_ARGS"), "\n")
		cmd := exec.Command(os.Getenv("PROCTEST_TETHER"), args...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(cmd.Process.Pid)
		_ = cmd.Wait()
		forever()
	},
	// ttyshell plays an interactive shell: as the session leader on the
	// terminal given as stdin, it runs tether with PROCTEST_ARGS in the
	// foreground, then reports whether the terminal came back to it.
	// ttyshell runs tether as an interactive shell runs a job: in a
	// process group of its own, in the terminal's foreground; it takes
	// the terminal back after, and prints the status as the shell shows
	// it (128+N for death by signal N).
	"ttyshell": func() {
		signal.Ignore(syscall.SIGTTOU)
		args := strings.Split(os.Getenv("PROCTEST_ARGS"), "\n")
		cmd := exec.Command(os.Getenv("PROCTEST_TETHER"), args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: 0}
		_ = cmd.Run()
		code := cmd.ProcessState.ExitCode()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
		_ = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, unix.Getpgrp())
		fg, _ := unix.IoctlGetInt(0, unix.TIOCGPGRP)
		fmt.Printf("\nexit=%d back=%v\n", code, fg == unix.Getpgrp())
	},
}

// helperEnv is the environment that makes the test binary, run by tether,
// a helper in mode.
func helperEnv(mode string, extra ...string) []string {
	return append([]string{proctest.ModeVar + "=" + mode}, extra...)
}

func pidsOf(s string) []int {
	var out []int
	for _, f := range strings.Fields(s) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// forever blocks without tripping the runtime's deadlock detector, which
// a bare select{} in a program with no other goroutine would.
func forever() {
	for {
		time.Sleep(time.Hour)
	}
}

// sigName is a signal's name, or "signal N" for a real-time one.
func sigName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return "signal " + strconv.Itoa(int(s))
}

// needFull skips a test of what only Linux's full supervision path does
// (the parent-death signal, the child subreaper, containment) when the
// tests run the portable one.
func needFull(t *testing.T, what string) {
	t.Helper()
	if portable {
		t.Skip("not on the portable path (tetherportable): " + what)
	}
}
