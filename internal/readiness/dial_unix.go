//go:build unix

package readiness

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// exchange connects to the TCP socket at to, sends req, and returns the
// first line of the answer, all before deadline. It is built on the
// socket calls and os.File's poller rather than package net, which would
// link the cgo resolver into the binary (a dynamic executable, and its
// start-up cost at every tether run) for one request to an address that
// needs no resolving.
func exchange(to netip.AddrPort, req []byte, deadline time.Time) (string, error) {
	family, sa := unix.AF_INET6, unix.Sockaddr(&unix.SockaddrInet6{Port: int(to.Port()), Addr: to.Addr().As16()})
	if to.Addr().Is4() {
		family, sa = unix.AF_INET, &unix.SockaddrInet4{Port: int(to.Port()), Addr: to.Addr().As4()}
	}
	// Under ForkLock, so that no child started meanwhile inherits it.
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(family, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return "", os.NewSyscallError("socket", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return "", os.NewSyscallError("fcntl", err)
	}
	// Non-blocking, so that os.File hands it to the runtime's poller and
	// its deadline holds for the connection, the request and the answer.
	f := os.NewFile(uintptr(fd), "tcp "+to.String())
	defer f.Close()
	if err := f.SetDeadline(deadline); err != nil {
		return "", err
	}
	if err := connect(f, sa); err != nil {
		return "", err
	}
	if _, err := f.Write(req); err != nil {
		return "", err
	}
	buf := make([]byte, 0, 1024)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			return string(bytes.TrimRight(buf[:i], "\r")), nil
		}
		switch {
		case errors.Is(err, io.EOF):
			if len(buf) == 0 {
				return "", errors.New("connection closed with no answer")
			}
			return string(buf), nil
		case err != nil:
			return "", err
		case len(buf) == cap(buf):
			return string(buf), nil
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
