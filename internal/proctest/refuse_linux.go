package proctest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Old kernels, stood in for by a seccomp filter.
//
// tether has to run where the kernel, or the seccomp profile of the
// container it runs in, refuses the newer system calls it prefers:
//
//   - Linux before 5.1 has no pidfd_send_signal, before 5.3 no pidfd_open
//     and no clone3, before 5.4 no waitid(P_PIDFD), before 5.6 no
//     pidfd_getfd: each answers ENOSYS.
//   - A container's allow-list written before a call existed refuses it
//     with the profile's default answer, EPERM in Docker's. Docker
//     20.10.0 to 20.10.9 answered clone3 with EPERM, which glibc takes for
//     a real refusal, not for "use clone instead"; later profiles answer
//     ENOSYS so that it falls back (moby/moby#42681).
//
// A test cannot boot an old kernel or count on an old Docker, but it can
// make the calls fail exactly as those systems do: a seccomp filter that
// answers the refused calls with SECCOMP_RET_ERRNO runs no part of them
// and returns the errno to the caller, which cannot tell it from a kernel
// without the call. The Refuse helper mode installs one and then execs
// the program under test; a filter survives execve and is inherited by
// every child, so the program's whole tree sees the old kernel. It takes
// no privilege beyond no_new_privs, no cgo and no tool: the filter is a
// classic BPF program built here.

const (
	// RefuseVar carries a Refuse helper's refusals, in the form that
	// FormatRefusals writes: "pidfd_open:ENOSYS,clone3:EPERM".
	RefuseVar = "PROCTEST_REFUSE"
	// ArgvVar carries the program that a Refuse helper execs and its
	// arguments, as a JSON array of strings.
	ArgvVar = "PROCTEST_ARGV"
	// execModeVar names the helper mode of the program a Refuse helper
	// execs, which gets it as PROCTEST_MODE (see ExecMode).
	execModeVar = "PROCTEST_EXEC_MODE"
	// refuseFailed is a Refuse helper's exit status when it could not
	// exec the program under its filter, as env(1) and nohup(1) exit 125
	// when they fail themselves.
	refuseFailed = 125
)

// A Refusal is a system call that a Refusing filter does not run: it
// answers the call with Errno, as a kernel without the call (ENOSYS) or a
// container profile that does not allow it (EPERM) would.
type Refusal struct {
	// Call is the system call's name: pidfd_open, pidfd_send_signal,
	// pidfd_getfd, clone3 or waitid. The filter matches the number
	// alone, not the arguments: refusing waitid refuses every waitid,
	// not only waitid(P_PIDFD), which is what a kernel before 5.4 lacks;
	// and a Go program's os.Process.Wait falls back to wait4 on ENOSYS
	// from waitid only, failing on any other errno.
	Call string
	// Errno is the answer, from 1 to 4095.
	//
	// clone3 refused with EPERM, as Docker 20.10.0 to 20.10.9 did, stops
	// glibc's pthread_create, which falls back to clone on ENOSYS only: a
	// program linked with glibc cannot start a thread. A Go test binary
	// linked with runtime/cgo (one that imports net, with cgo enabled)
	// aborts at start ("runtime/cgo: pthread_create failed: Operation not
	// permitted"), as programs did in those containers; a Go program
	// without cgo, tether itself, starts its threads with clone.
	Errno syscall.Errno
}

// refusable are the calls a Refusal may name, by their numbers on the
// build's architecture.
var refusable = map[string]uint32{
	"pidfd_open":        unix.SYS_PIDFD_OPEN,
	"pidfd_send_signal": unix.SYS_PIDFD_SEND_SIGNAL,
	"pidfd_getfd":       unix.SYS_PIDFD_GETFD,
	"clone3":            unix.SYS_CLONE3,
	"waitid":            unix.SYS_WAITID,
}

// maxErrno is the kernel's MAX_ERRNO: the largest errno a system call
// returns, and so the largest a filter may answer with.
const maxErrno = 4095

// String is the refusal as ParseRefusals reads it: "clone3:EPERM".
func (r Refusal) String() string {
	return r.Call + ":" + errnoName(r.Errno)
}

func errnoName(e syscall.Errno) string {
	if name := unix.ErrnoName(e); name != "" {
		return name
	}
	return strconv.Itoa(int(e))
}

// FormatRefusals writes refusals as ParseRefusals reads them, the value of
// RefuseVar: "pidfd_open:ENOSYS,clone3:EPERM"; none is "".
func FormatRefusals(refuse []Refusal) string {
	parts := make([]string, len(refuse))
	for i, r := range refuse {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// ParseRefusals reads refusals written as FormatRefusals writes them: a
// comma-separated list of call:errno, the errno by name (ENOSYS, EPERM)
// or number. A call without ":errno" is refused with ENOSYS, as a kernel
// without it refuses it. An empty string is no refusal. A call that is
// not one Refusal may name, an errno that is not one, and a call named
// twice are errors that quote the value.
func ParseRefusals(s string) ([]Refusal, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var refuse []Refusal
	for item := range strings.SplitSeq(s, ",") {
		call, name, ok := strings.Cut(strings.TrimSpace(item), ":")
		r := Refusal{Call: call, Errno: syscall.ENOSYS}
		if ok {
			e, err := parseErrno(name)
			if err != nil {
				return nil, fmt.Errorf("refusal %q: %v", item, err)
			}
			r.Errno = e
		}
		refuse = append(refuse, r)
	}
	if _, err := numbers(refuse); err != nil {
		return nil, err
	}
	return refuse, nil
}

func parseErrno(s string) (syscall.Errno, error) {
	if n, err := strconv.Atoi(s); err == nil {
		return syscall.Errno(n), nil
	}
	for e := syscall.Errno(1); e <= maxErrno && s != ""; e++ {
		if unix.ErrnoName(e) == s {
			return e, nil
		}
	}
	return 0, fmt.Errorf("no errno %q (want a name such as ENOSYS or EPERM, or a number)", s)
}

// numbers are the system call numbers of refuse, checked: each call one
// that a Refusal may name, named once, with an errno a filter can give.
func numbers(refuse []Refusal) ([]uint32, error) {
	nrs := make([]uint32, len(refuse))
	seen := map[string]bool{}
	for i, r := range refuse {
		nr, ok := refusable[r.Call]
		if !ok {
			return nil, fmt.Errorf("refusal %q: no system call %q to refuse (want pidfd_open, pidfd_send_signal, pidfd_getfd, clone3 or waitid)", r, r.Call)
		}
		if seen[r.Call] {
			return nil, fmt.Errorf("refusal %q: %s refused twice", r, r.Call)
		}
		seen[r.Call] = true
		if r.Errno < 1 || r.Errno > maxErrno {
			return nil, fmt.Errorf("refusal %q: errno %d is not one from 1 to %d", r, int(r.Errno), maxErrno)
		}
		nrs[i] = nr
	}
	return nrs, nil
}

// The parts of the filter: the offsets of struct seccomp_data's fields,
// the x32 ABI's bit of a system call number on x86-64, and the classic
// BPF instructions the filter is made of.
const (
	dataNr   = 0 // int nr
	dataArch = 4 // __u32 arch

	x32SyscallBit = 0x40000000 // __X32_SYSCALL_BIT

	bpfLd   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS // A = seccomp_data[k]
	bpfJeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRet  = unix.BPF_RET | unix.BPF_K
)

// program builds the filter that refuses refuse for a process whose own
// calls carry arch (an AUDIT_ARCH_ value) in seccomp_data; x32 says that
// x32 calls carry it too, marked by x32SyscallBit in their number (on
// x86-64). Each jump skips at most one instruction:
//
//	0        ld  [4]                    arch
//	1        jeq arch, 1, 0
//	2        ret ALLOW                  a foreign architecture's call
//	3        ld  [0]                    nr
//	4        jset 0x40000000, 0, 1      (x32 only)
//	5        ret ALLOW                  (x32 only) an x32 call
//	then, for each refusal:
//	         jeq nr, 0, 1
//	         ret ERRNO|errno
//	last     ret ALLOW
//
// A call of another architecture (a 32-bit program under a 64-bit
// kernel: i386 on x86-64, arm on arm64) is allowed: it has numbers of its
// own, and the tests are about the build's own programs, which make none.
// An x32 call is allowed for the same reason: Go has no x32 port, no
// program a test runs makes one, and x32 numbers the refusable calls
// differently (its waitid is 529, not 247 with the bit), so refusing
// "the same" calls there would be guesswork.
func program(arch uint32, x32 bool, refuse []Refusal) ([]unix.SockFilter, error) {
	nrs, err := numbers(refuse)
	if err != nil {
		return nil, err
	}
	prog := []unix.SockFilter{
		{Code: bpfLd, K: dataArch},
		{Code: bpfJeq, K: arch, Jt: 1, Jf: 0},
		{Code: bpfRet, K: unix.SECCOMP_RET_ALLOW},
		{Code: bpfLd, K: dataNr},
	}
	if x32 {
		prog = append(prog,
			unix.SockFilter{Code: bpfJset, K: x32SyscallBit, Jt: 0, Jf: 1},
			unix.SockFilter{Code: bpfRet, K: unix.SECCOMP_RET_ALLOW})
	}
	for i, r := range refuse {
		prog = append(prog,
			unix.SockFilter{Code: bpfJeq, K: nrs[i], Jt: 0, Jf: 1},
			unix.SockFilter{Code: bpfRet, K: unix.SECCOMP_RET_ERRNO | uint32(r.Errno)})
	}
	return append(prog, unix.SockFilter{Code: bpfRet, K: unix.SECCOMP_RET_ALLOW}), nil
}

// install installs prog as a seccomp filter of the calling thread, which
// has no_new_privs set (or the caller CAP_SYS_ADMIN).
func install(prog []unix.SockFilter) error {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if e == unix.ENOSYS {
		// Linux before 3.17 has the filter through prctl only.
		_, _, e = unix.Syscall(unix.SYS_PRCTL, unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)))
	}
	runtime.KeepAlive(prog)
	if e != 0 {
		return e
	}
	return nil
}

// refuseMode is the Refuse helper mode: it execs the program of ArgvVar under
// a filter that refuses the calls of RefuseVar, or says why not on one
// line of its stderr and exits 125.
func refuseMode() {
	err := refuseExec()
	fmt.Fprintf(os.Stderr, "proctest %s: %v\n", Refuse, err)
	os.Exit(refuseFailed)
}

// refuseExec returns only when it could not exec.
func refuseExec() error {
	if auditArch == 0 {
		return fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	refuse, err := ParseRefusals(os.Getenv(RefuseVar))
	if err != nil {
		return fmt.Errorf("%s: %v", RefuseVar, err)
	}
	prog, err := program(auditArch, x32, refuse)
	if err != nil {
		return err
	}
	var argv []string
	if err := json.Unmarshal([]byte(os.Getenv(ArgvVar)), &argv); err != nil {
		return fmt.Errorf("%s=%q: %v", ArgvVar, os.Getenv(ArgvVar), err)
	}
	if len(argv) == 0 || argv[0] == "" {
		return fmt.Errorf("%s=%q names no program", ArgvVar, os.Getenv(ArgvVar))
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	env := refusedEnv(os.Environ())
	// no_new_privs and the filter are the calling thread's; execve makes
	// that thread the whole process. The thread is never unlocked: it
	// execs, or the helper exits.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %v", err)
	}
	if err := install(prog); err != nil {
		return fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER): %v", err)
	}
	err = syscall.Exec(path, argv, env)
	return fmt.Errorf("exec %s: %v", path, err)
}

// refusedEnv is a Refuse helper's environment for the program it execs:
// without the variables the helper consumed, its PROCTEST_EXEC_MODE
// turned into the program's PROCTEST_MODE; the test id and everything
// else stay, so that the leak check still finds the program's tree.
func refusedEnv(environ []string) []string {
	var env []string
	mode := ""
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case ModeVar, RefuseVar, ArgvVar:
		case execModeVar:
			mode = value
		default:
			env = append(env, kv)
		}
	}
	if mode != "" {
		env = append(env, ModeVar+"="+mode)
	}
	return env
}

// ExecMode is the environment entry that makes the test binary, when a
// Refusing helper execs it, a helper in mode name: PROCTEST_MODE names the
// Refuse mode until then. It marks the mode used, as Mode does, and
// panics if name is not a mode.
func ExecMode(name string) string {
	MaySkip(name)
	return execModeVar + "=" + name
}

// Refusing returns a command, not started, that runs argv (the program,
// looked up in PATH, and its arguments) as if on a kernel without the
// calls of refuse: the test binary in the Refuse helper mode, which
// installs a seccomp filter that answers each refused call with its
// errno and execs argv under it. The filter is inherited by every child
// of argv. The command's Env is CleanEnv and the test's id (Env), to
// which the caller may append; its Stdout and Stderr are the caller's
// to set. If the helper cannot exec argv under the filter, it says why
// on one line of its stderr and exits 125. Refusing skips the test on an
// architecture it has no filter for (other than amd64 and arm64), and
// fails it if refuse is not valid or argv empty.
//
// To run tether as on Linux 5.2, or in a Docker 20.10.0 container:
//
//	cmd := proctest.Refusing(t, []proctest.Refusal{
//		{Call: "pidfd_open", Errno: syscall.ENOSYS},
//		{Call: "clone3", Errno: syscall.EPERM},
//	}, tether, "run", "--", "sleep", "1")
//	cmd.Env = append(cmd.Env, "TETHER_DEBUG=1")
//	out, err := cmd.CombinedOutput()
//
// To run the test binary itself in a helper mode under the filter, name
// the mode with ExecMode:
//
//	cmd := proctest.Refusing(t, refuse, os.Args[0])
//	cmd.Env = append(cmd.Env, proctest.ExecMode(modeProbe))
func Refusing(t testing.TB, refuse []Refusal, argv ...string) *exec.Cmd {
	t.Helper()
	if auditArch == 0 {
		t.Skipf("proctest: no seccomp filter for %s", runtime.GOARCH)
	}
	if _, err := program(auditArch, x32, refuse); err != nil {
		t.Fatalf("proctest.Refusing: %v", err)
	}
	if len(argv) == 0 || argv[0] == "" {
		t.Fatal("proctest.Refusing: no program to run")
	}
	js, err := json.Marshal(argv)
	if err != nil {
		t.Fatalf("proctest.Refusing: %v", err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(CleanEnv(), Env(t)...)
	cmd.Env = append(cmd.Env,
		Mode(Refuse),
		RefuseVar+"="+FormatRefusals(refuse),
		ArgvVar+"="+string(js),
		// A race-enabled program would otherwise sleep a second at exit.
		"GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
	return cmd
}
