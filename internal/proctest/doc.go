// Package proctest starts real helper processes for tether's tests and
// makes sure none of them outlives the test that started it.
//
// It follows the re-exec pattern of os/exec's own tests: the test binary
// runs itself in a helper mode chosen by an environment variable, each mode
// registered (Register) in the test file that uses it. Each helper carries
// the id of the test that started it, so that the leak check at cleanup
// can find every process of that test, descendants included, by reading
// the real /proc; it signals only those processes, which the test started.
//
// On Linux, a test can also run a program as if on an older kernel, or in
// a container whose seccomp profile predates the calls tether prefers:
// Refusing runs it under a seccomp filter, built here, that answers
// pidfd_open, pidfd_send_signal, pidfd_getfd, clone3 or waitid with the
// errno such a system answers (ENOSYS from Linux before 5.3 for
// pidfd_open, EPERM for clone3 from Docker 20.10.0 to 20.10.9's default
// profile), for the program and every child of it. See refuse_linux.go
// for why a filter is a faithful stand-in.
package proctest
