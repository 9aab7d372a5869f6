//go:build unix

package readiness

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// dial connects to e before deadline, which then holds for what is
// written and read. It is built on the socket calls and os.File's poller
// rather than package net, which would link the cgo resolver into the
// binary (a dynamic executable, and its start-up cost at every tether
// run) for requests to addresses resolved already (internal/hosts).
func dial(e endpoint, deadline time.Time) (*os.File, error) {
	var family int
	var sa unix.Sockaddr
	switch {
	case e.unix != "":
		family, sa = unix.AF_UNIX, &unix.SockaddrUnix{Name: e.unix}
	case e.tcp.Addr().Is4():
		family, sa = unix.AF_INET, &unix.SockaddrInet4{Port: int(e.tcp.Port()), Addr: e.tcp.Addr().As4()}
	default:
		family, sa = unix.AF_INET6, &unix.SockaddrInet6{Port: int(e.tcp.Port()), Addr: e.tcp.Addr().As16()}
	}
	// Under ForkLock, so that no child started meanwhile inherits it.
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(family, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	// Non-blocking, so that os.File hands it to the runtime's poller and
	// its deadline holds for the connection, the request and the answer.
	f := os.NewFile(uintptr(fd), e.String())
	if err := f.SetDeadline(deadline); err != nil {
		f.Close()
		return nil, err
	}
	if err := connect(f, sa); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// accepts reports, as an error, whether a connection to e is made
// before deadline: nil when it is.
func accepts(e endpoint, deadline time.Time) error {
	f, err := dial(e, deadline)
	if err != nil {
		return err
	}
	return f.Close()
}

// maxHead is how much of an answer is read for its status line and
// headers: a Location header fits many times over.
const maxHead = 16 << 10

// exchange connects to e, sends req, and returns the head of the answer
// (its status line and headers, CRLFs as sent), all before deadline. The
// body is never read: it can be anything, endless included.
func exchange(e endpoint, req []byte, deadline time.Time) (string, error) {
	f, err := dial(e, deadline)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.Write(req); err != nil {
		return "", err
	}
	buf := make([]byte, 0, 2048)
	for {
		if len(buf) == cap(buf) {
			if cap(buf) >= maxHead {
				return string(buf), nil
			}
			buf = append(buf, make([]byte, cap(buf))...)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if i := bytes.Index(buf, []byte("\r\n\r\n")); i >= 0 {
			return string(buf[:i]), nil
		}
		switch {
		case errors.Is(err, io.EOF):
			if len(buf) == 0 {
				return "", errors.New("connection closed with no answer")
			}
			return string(buf), nil
		case err != nil:
			return "", err
		}
	}
}

// connect starts a connection and waits, on the poller, until it is made
// or refused.
func connect(f *os.File, sa unix.Sockaddr) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	started := false
	var cerr error
	err = rc.Write(func(fd uintptr) bool {
		if !started {
			started = true
			cerr = unix.Connect(int(fd), sa)
			return cerr != unix.EINPROGRESS && cerr != unix.EINTR
		}
		// Writable: made, or refused with the reason in SO_ERROR.
		if errno, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_ERROR); err != nil {
			cerr = err
		} else if errno != 0 {
			cerr = syscall.Errno(errno)
		} else if _, err := unix.Getpeername(int(fd)); err == unix.ENOTCONN {
			return false
		} else {
			cerr = err
		}
		return true
	})
	if err != nil {
		return err
	}
	return os.NewSyscallError("connect", cerr)
}
