//go:build unix

package hosts

import (
	"net/netip"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// exchangeUDP sends q to the server at to and returns the first datagram
// that comes back, before deadline: sockets and os.File's poller, not
// package net (doc.go).
func exchangeUDP(to netip.AddrPort, q []byte, deadline time.Time) ([]byte, error) {
	family, sa := unix.AF_INET6, unix.Sockaddr(&unix.SockaddrInet6{Port: int(to.Port()), Addr: to.Addr().As16()})
	if to.Addr().Is4() {
		family, sa = unix.AF_INET, &unix.SockaddrInet4{Port: int(to.Port()), Addr: to.Addr().As4()}
	}
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(family, unix.SOCK_DGRAM, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	// Connected, so that only the server's answers are read.
	if err := unix.Connect(fd, sa); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("connect", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(fd), "udp "+to.String())
	defer f.Close()
	if err := f.SetDeadline(deadline); err != nil {
		return nil, err
	}
	if _, err := f.Write(q); err != nil {
		return nil, err
	}
	buf := make([]byte, 1500)
	n, err := f.Read(buf)
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}
