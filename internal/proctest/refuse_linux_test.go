package proctest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

func TestRefusalText(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		want    []Refusal
	}{
		{in: "", out: ""},
		{in: " ", out: ""},
		{in: "pidfd_open:ENOSYS", out: "pidfd_open:ENOSYS", want: []Refusal{{"pidfd_open", syscall.ENOSYS}}},
		{in: "pidfd_open", out: "pidfd_open:ENOSYS", want: []Refusal{{"pidfd_open", syscall.ENOSYS}}},
		{in: "pidfd_open:ENOSYS,clone3:EPERM", out: "pidfd_open:ENOSYS,clone3:EPERM",
			want: []Refusal{{"pidfd_open", syscall.ENOSYS}, {"clone3", syscall.EPERM}}},
		{in: " clone3:1 , waitid:ENOSYS,pidfd_getfd:EACCES,pidfd_send_signal:EPERM",
			out:  "clone3:EPERM,waitid:ENOSYS,pidfd_getfd:EACCES,pidfd_send_signal:EPERM",
			want: []Refusal{{"clone3", syscall.EPERM}, {"waitid", syscall.ENOSYS}, {"pidfd_getfd", syscall.EACCES}, {"pidfd_send_signal", syscall.EPERM}}},
		{in: "clone3:4095", out: "clone3:4095", want: []Refusal{{"clone3", 4095}}},
	} {
		got, err := ParseRefusals(tc.in)
		if err != nil {
			t.Errorf("ParseRefusals(%q): %v", tc.in, err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) || len(got) != len(tc.want) {
			t.Errorf("ParseRefusals(%q) = %v, want %v", tc.in, got, tc.want)
		}
		if s := FormatRefusals(got); s != tc.out {
			t.Errorf("FormatRefusals(ParseRefusals(%q)) = %q, want %q", tc.in, s, tc.out)
		}
		if again, err := ParseRefusals(FormatRefusals(got)); err != nil || fmt.Sprint(again) != fmt.Sprint(got) {
			t.Errorf("ParseRefusals(%q) = %v, %v, want %v back", FormatRefusals(got), again, err, got)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"fork:ENOSYS", `no system call "fork"`},
		{"pidfd_open:ENOSYS,,clone3", `no system call ""`},
		{"pidfd_open:ENOSIS", `no errno "ENOSIS"`},
		{"pidfd_open:", `no errno ""`},
		{"pidfd_open:enosys", `no errno "enosys"`},
		{"pidfd_open:0", "errno 0 is not one from 1 to 4095"},
		{"pidfd_open:4096", "errno 4096 is not one"},
		{"pidfd_open:-1", "errno -1 is not one"},
		{"clone3:EPERM,clone3:ENOSYS", "clone3 refused twice"},
	} {
		got, err := ParseRefusals(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseRefusals(%q) = %v, %v; want an error saying %q", tc.in, got, err, tc.want)
		}
	}
}

// exec runs prog, a filter, as the kernel would on the seccomp_data of a
// call (its number and architecture), and returns its answer.
func execFilter(t *testing.T, prog []unix.SockFilter, arch, nr uint32) uint32 {
	t.Helper()
	var a uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case bpfLd:
			switch in.K {
			case 0:
				a = nr
			case 4:
				a = arch
			default:
				t.Fatalf("instruction %d loads seccomp_data at %d, want nr (0) or arch (4)", pc, in.K)
			}
		case bpfJeq:
			if a == in.K {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case bpfJset:
			if a&in.K != 0 {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case bpfRet:
			return in.K
		default:
			t.Fatalf("instruction %d has code %#x, not one a filter is made of", pc, in.Code)
		}
	}
	t.Fatalf("the filter runs off its end on arch %#x nr %d", arch, nr)
	return 0
}

// The filter's layout, instruction by instruction, and its answer to
// each call, the values written out as the kernel's headers define them.
func TestFilterProgram(t *testing.T) {
	const (
		retAllow  = 0x7fff0000
		retErrno  = 0x00050000
		x86_64    = 0xc000003e
		aarch64   = 0xc00000b7
		i386      = 0x40000003
		arm       = 0x40000028
		x32Bit    = 0x40000000
		ldNr      = 0x20 // BPF_LD|BPF_W|BPF_ABS
		jumpEq    = 0x15 // BPF_JMP|BPF_JEQ|BPF_K
		jumpSet   = 0x45 // BPF_JMP|BPF_JSET|BPF_K
		returnK   = 0x06 // BPF_RET|BPF_K
		archCheck = 4
	)
	refuse := []Refusal{{"pidfd_open", syscall.ENOSYS}, {"clone3", syscall.EPERM}}
	want := []unix.SockFilter{
		{Code: ldNr, K: 4},
		{Code: jumpEq, Jt: 1, Jf: 0, K: x86_64},
		{Code: returnK, K: retAllow},
		{Code: ldNr, K: 0},
		{Code: jumpSet, Jt: 0, Jf: 1, K: x32Bit},
		{Code: returnK, K: retAllow},
		{Code: jumpEq, Jt: 0, Jf: 1, K: unix.SYS_PIDFD_OPEN},
		{Code: returnK, K: retErrno | 38},
		{Code: jumpEq, Jt: 0, Jf: 1, K: unix.SYS_CLONE3},
		{Code: returnK, K: retErrno | 1},
		{Code: returnK, K: retAllow},
	}
	got, err := program(x86_64, true, refuse)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("x86-64 program for %v:\n%v\nwant\n%v", refuse, got, want)
	}
	// Without x32, the bit's test and its return are left out.
	want = append([]unix.SockFilter{want[0], {Code: jumpEq, Jt: 1, Jf: 0, K: aarch64}}, want[2:4]...)
	want = append(want, got[6:]...)
	got, err = program(aarch64, false, refuse)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("arm64 program for %v:\n%v\nwant\n%v", refuse, got, want)
	}

	all := []Refusal{
		{"pidfd_open", syscall.ENOSYS},
		{"pidfd_send_signal", syscall.EPERM},
		{"pidfd_getfd", syscall.EACCES},
		{"clone3", syscall.EINVAL},
		{"waitid", syscall.ENOSYS},
	}
	for _, layout := range []struct {
		arch, foreign uint32
		x32           bool
	}{{x86_64, i386, true}, {aarch64, arm, false}} {
		for n := 0; n <= len(all); n++ {
			refuse := all[:n]
			prog, err := program(layout.arch, layout.x32, refuse)
			if err != nil {
				t.Fatal(err)
			}
			size := archCheck + 2*n + 1
			if layout.x32 {
				size += 2
			}
			if len(prog) != size {
				t.Errorf("arch %#x: %d refusals make %d instructions, want %d", layout.arch, n, len(prog), size)
			}
			answers := map[uint32]uint32{unix.SYS_GETPID: retAllow, unix.SYS_CLONE: retAllow, unix.SYS_EXECVE: retAllow}
			for i, r := range all {
				answers[refusable[r.Call]] = retAllow
				if i < n {
					answers[refusable[r.Call]] = retErrno | uint32(r.Errno)
				}
			}
			for nr, want := range answers {
				if got := execFilter(t, prog, layout.arch, nr); got != want {
					t.Errorf("arch %#x, refusing %v: call %d answered %#x, want %#x", layout.arch, refuse, nr, got, want)
				}
				if got := execFilter(t, prog, layout.foreign, nr); got != retAllow {
					t.Errorf("arch %#x, refusing %v: call %d of arch %#x answered %#x, want it allowed", layout.arch, refuse, nr, layout.foreign, got)
				}
				if !layout.x32 {
					continue
				}
				if got := execFilter(t, prog, layout.arch, nr|x32Bit); got != retAllow {
					t.Errorf("refusing %v: x32 call %d answered %#x, want it allowed", refuse, nr, got)
				}
			}
		}
	}

	for _, refuse := range [][]Refusal{
		{{"pidfd_open", syscall.ENOSYS}, {"pidfd_open", syscall.EPERM}},
		{{"open", syscall.ENOSYS}},
		{{"clone3", 0}},
		{{"clone3", 4096}},
	} {
		if prog, err := program(x86_64, true, refuse); err == nil {
			t.Errorf("program(%v) = %v, want an error", refuse, prog)
		}
	}
}

// modeProbe makes the calls a Refusal may name, harmlessly, and prints
// one line of their answers ("pidfd_open=ok clone3=EINVAL ..."), the
// process's seccomp mode and no_new_privs, and its PID. With
// PROCTEST_PROBE_AGAIN set, it then runs itself once more as its child,
// which prints its own line.
var modeProbe = Register("syscall-probe", func() {
	answer := func(err error) string {
		var e syscall.Errno
		if errors.As(err, &e) {
			return errnoName(e)
		}
		if err != nil {
			return err.Error()
		}
		return "ok"
	}
	errno := func(e syscall.Errno) error {
		if e == 0 {
			return nil
		}
		return e
	}
	var fields []string
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err == nil {
		unix.Close(fd)
	}
	fields = append(fields, "pidfd_open="+answer(err))
	// A pidfd of -1: EBADF, if the call is made.
	_, _, e := unix.Syscall6(unix.SYS_PIDFD_SEND_SIGNAL, ^uintptr(0), 0, 0, 0, 0, 0)
	fields = append(fields, "pidfd_send_signal="+answer(errno(e)))
	_, _, e = unix.Syscall(unix.SYS_PIDFD_GETFD, ^uintptr(0), 0, 0)
	fields = append(fields, "pidfd_getfd="+answer(errno(e)))
	// No clone_args at all: EINVAL (size 0), if the call is made; it
	// never clones.
	_, _, e = unix.Syscall(unix.SYS_CLONE3, 0, 0, 0)
	fields = append(fields, "clone3="+answer(errno(e)))
	// No child yet: ECHILD, if the call is made.
	var info unix.Siginfo
	err = unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG, nil)
	fields = append(fields, "waitid="+answer(err))
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		os.Exit(2)
	}
	for _, line := range strings.Split(string(status), "\n") {
		name, value, _ := strings.Cut(line, ":")
		switch name {
		case "Seccomp":
			fields = append(fields, "seccomp="+strings.TrimSpace(value))
		case "NoNewPrivs":
			fields = append(fields, "nnp="+strings.TrimSpace(value))
		}
	}
	fields = append(fields, fmt.Sprintf("pid=%d", os.Getpid()))
	fmt.Println(strings.Join(fields, " "))
	if os.Getenv("PROCTEST_PROBE_AGAIN") == "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		os.Exit(2)
	}
	cmd := exec.Command(exe)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PROCTEST_PROBE_AGAIN=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "probe: child:", err)
		os.Exit(2)
	}
})

// probeLine reads a probe's line into its fields.
func probeLine(t *testing.T, line string) map[string]string {
	t.Helper()
	fields := map[string]string{}
	for f := range strings.FieldsSeq(line) {
		name, value, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("probe line %q: field %q", line, f)
		}
		fields[name] = value
	}
	for _, name := range []string{"pidfd_open", "pidfd_send_signal", "pidfd_getfd", "clone3", "waitid", "seccomp", "nnp", "pid"} {
		if _, ok := fields[name]; !ok {
			t.Fatalf("probe line %q has no %s", line, name)
		}
	}
	return fields
}

// unfiltered is what the calls answer here, without a filter: a probe
// started as any helper is.
func unfiltered(t *testing.T) map[string]string {
	t.Helper()
	_, line := StartLine(t, modeProbe, Spec{})
	base := probeLine(t, line)
	if base["nnp"] != "0" {
		t.Fatalf("probe without a filter: %q, want no no_new_privs", line)
	}
	return base
}

// refused runs the probe under a filter refusing refuse and returns its
// lines; with again, the probe runs itself once more as its child.
func refused(t *testing.T, refuse []Refusal, again bool) []map[string]string {
	t.Helper()
	cmd := Refusing(t, refuse, os.Args[0])
	cmd.Env = append(cmd.Env, ExecMode(modeProbe))
	if again {
		cmd.Env = append(cmd.Env, "PROCTEST_PROBE_AGAIN=1")
	}
	out, stderr, err := output(cmd)
	if err != nil {
		t.Fatalf("probe refusing %v: %v; stderr: %s", refuse, err, stderr)
	}
	var lines []map[string]string
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		lines = append(lines, probeLine(t, line))
	}
	return lines
}

func output(cmd *exec.Cmd) (stdout, stderr string, err error) {
	var errs bytes.Buffer
	cmd.Stderr = &errs
	out, err := cmd.Output()
	return string(out), errs.String(), err
}

// checkProbe compares a filtered probe's answers with the unfiltered
// ones: the refused calls answer their errno, all others as before.
func checkProbe(t *testing.T, what string, got, base map[string]string, refuse []Refusal) {
	t.Helper()
	want := map[string]string{}
	for call := range refusable {
		want[call] = base[call]
	}
	for _, r := range refuse {
		if base[r.Call] == errnoName(r.Errno) {
			t.Skipf("%s already answers %s here, unfiltered: its refusal cannot be told apart", r.Call, base[r.Call])
		}
		want[r.Call] = errnoName(r.Errno)
	}
	want["seccomp"] = "2"
	want["nnp"] = "1"
	for name, value := range want {
		if got[name] != value {
			t.Errorf("%s, refusing %v: %s answered %s, want %s (unfiltered: %s)", what, refuse, name, got[name], value, base[name])
		}
	}
}

// Each refused call answers its errno, in a Go program that runs at all
// (its runtime makes many other calls); the others answer as they do
// unfiltered.
func TestRefusingAnswers(t *testing.T) {
	base := unfiltered(t)
	t.Logf("unfiltered: %v", base)
	for _, refuse := range []string{
		"",
		"pidfd_open:ENOSYS",
		"pidfd_open:EPERM",
		"pidfd_send_signal:ENOSYS",
		"pidfd_send_signal:EPERM",
		"pidfd_getfd:ENOSYS",
		"clone3:ENOSYS",
		"waitid:ENOSYS",
		// An allow-list that predates the pidfd calls, in a container on
		// a kernel that has them.
		"pidfd_open:EPERM,pidfd_send_signal:EPERM,pidfd_getfd:EPERM",
	} {
		name := strings.ReplaceAll(refuse, ",", "+")
		if name == "" {
			name = "none"
		}
		t.Run(name, func(t *testing.T) {
			r, err := ParseRefusals(refuse)
			if err != nil {
				t.Fatal(err)
			}
			lines := refused(t, r, false)
			if len(lines) != 1 {
				t.Fatalf("probe printed %d lines, want 1", len(lines))
			}
			checkProbe(t, "probe", lines[0], base, r)
		})
	}
}

// A Linux 5.0 as a Go program sees it, with its own child: the filter
// is inherited, and Go's own process start and wait get by without
// pidfds, clone3 or waitid.
func TestRefusingInherited(t *testing.T) {
	base := unfiltered(t)
	old, err := ParseRefusals("pidfd_open,pidfd_send_signal,pidfd_getfd,clone3,waitid")
	if err != nil {
		t.Fatal(err)
	}
	lines := refused(t, old, true)
	if len(lines) != 2 {
		t.Fatalf("probe and its child printed %d lines, want 2", len(lines))
	}
	if lines[0]["pid"] == lines[1]["pid"] {
		t.Fatalf("probe and child both pid %s, want two processes", lines[0]["pid"])
	}
	checkProbe(t, "probe", lines[0], base, old)
	checkProbe(t, "probe's child", lines[1], base, old)
}

// Any program runs under the filter, found in PATH, with its arguments
// and the test's id, not the helper's own variables; a child of a shell
// is filtered too.
func TestRefusingRunsAProgram(t *testing.T) {
	cmd := Refusing(t, []Refusal{{"pidfd_open", syscall.ENOSYS}}, "sh", "-c", `grep -E '^(Seccomp|NoNewPrivs):' /proc/self/status; env`, "sh")
	cmd.Env = append(cmd.Env, "PROCTEST_KEEP=yes")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v; stderr: %s", err, stderr.Bytes())
	}
	got := map[string]string{}
	for line := range strings.Lines(string(out)) {
		if name, value, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			got[name] = value
		} else if name, value, ok := strings.Cut(line, ":"); ok {
			got[name] = strings.TrimSpace(value)
		}
	}
	if got["Seccomp"] != "2" || got["NoNewPrivs"] != "1" {
		t.Errorf("grep under sh: Seccomp %q, NoNewPrivs %q, want 2 and 1; output:\n%s", got["Seccomp"], got["NoNewPrivs"], out)
	}
	if got[IDVar] != TestID(t) || got["PROCTEST_KEEP"] != "yes" {
		t.Errorf("environment has %s=%q PROCTEST_KEEP=%q, want the test's id and the caller's variable; output:\n%s", IDVar, got[IDVar], got["PROCTEST_KEEP"], out)
	}
	for _, name := range []string{ModeVar, RefuseVar, ArgvVar, execModeVar} {
		if v, ok := got[name]; ok {
			t.Errorf("environment has %s=%q, want the helper's variables gone", name, v)
		}
	}
}

// A helper that cannot exec its program under the filter says why on one
// line and exits 125, whether it fails before the filter or after.
func TestRefuseFails(t *testing.T) {
	garbage := filepath.Join(t.TempDir(), "garbage")
	if err := os.WriteFile(garbage, []byte("\x00\x01 no program\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		argv []string
		env  []string
		want string
	}{
		{"refusal", []string{"true"}, []string{RefuseVar + "=pidfd_open:ENOSYS,fork:EPERM"}, `no system call "fork"`},
		{"no argv", []string{"true"}, []string{ArgvVar + "=[]"}, "names no program"},
		{"argv not JSON", []string{"true"}, []string{ArgvVar + "=true"}, ArgvVar},
		{"no program", []string{"/nonexistent/proctest"}, nil, "no such file"},
		{"exec", []string{garbage}, nil, "exec " + garbage + ": exec format error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := Refusing(t, []Refusal{{"clone3", syscall.EPERM}}, tc.argv...)
			cmd.Env = append(cmd.Env, tc.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 125 {
				t.Errorf("helper: %v, want exit status 125", err)
			}
			msg := stderr.String()
			if !strings.HasPrefix(msg, "proctest refuse: ") || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, tc.want) {
				t.Errorf("helper's stderr %q, want one line saying %q", msg, tc.want)
			}
		})
	}
}

// clone3 refused with EPERM, as Docker 20.10.0 to 20.10.9 refused it:
// glibc does not fall back to clone, so a test binary linked with it
// cannot start its threads and aborts, as programs did in those
// containers; one without cgo answers EPERM. Either way, the answer is
// EPERM: a filter that let clone3 through (EINVAL) or answered ENOSYS
// (glibc falls back) fails the test.
func TestRefusingClone3EPERM(t *testing.T) {
	base := unfiltered(t)
	refuse := []Refusal{{"clone3", syscall.EPERM}}
	cmd := Refusing(t, refuse, os.Args[0])
	cmd.Env = append(cmd.Env, ExecMode(modeProbe))
	out, stderr, err := output(cmd)
	if err == nil {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 1 {
			t.Fatalf("probe printed %q, want 1 line", out)
		}
		checkProbe(t, "probe", probeLine(t, lines[0]), base, refuse)
		return
	}
	if !strings.Contains(stderr, "pthread_create failed: Operation not permitted") {
		t.Fatalf("probe refusing clone3 with EPERM: %v; stderr %q; want its answers, or glibc's failure to start a thread", err, firstLine(stderr))
	}
	t.Logf("probe refusing clone3 with EPERM: %v: %s (a glibc thread, as in Docker 20.10.0 to 20.10.9)", err, firstLine(stderr))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
