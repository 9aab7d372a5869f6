//go:build unix

package engines

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// maxAnswer bounds an answer read from an engine: a list of a thousand
// containers is a few megabytes.
const maxAnswer = 16 << 20

// exchange connects to the engine's socket, checks who listens there,
// sends one request and reads the whole answer, all before deadline.
func (c *client) exchange(method, target string, deadline time.Time) (answer, error) {
	// Under ForkLock, so that no child started meanwhile inherits it.
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return answer{}, os.NewSyscallError("socket", err)
	}
	// A unix socket's connect does not wait for the other end to
	// accept; it is made before the deadline is set.
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: c.path}); err != nil {
		unix.Close(fd)
		return answer{}, fmt.Errorf("connect: %w", err)
	}
	if err := c.checkPeer(fd); err != nil {
		unix.Close(fd)
		return answer{}, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return answer{}, os.NewSyscallError("fcntl", err)
	}
	// Non-blocking, so that os.File hands it to the runtime's poller and
	// the deadline holds for the request and the answer.
	f := os.NewFile(uintptr(fd), c.path)
	defer f.Close()
	if err := f.SetDeadline(deadline); err != nil {
		return answer{}, err
	}
	if _, err := f.Write(request(method, target)); err != nil {
		return answer{}, fmt.Errorf("send: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxAnswer+64<<10+1))
	if err != nil {
		return answer{}, fmt.Errorf("read the answer: %w", err)
	}
	if len(data) > maxAnswer+64<<10 {
		return answer{}, fmt.Errorf("an answer longer than %d bytes", maxAnswer)
	}
	return parseAnswer(data)
}

// checkPeer refuses an engine that runs as a user other than those
// whose sockets are trusted (trustedOwner), whoever owns the socket file.
func (c *client) checkPeer(fd int) error {
	uid, err := peerUID(fd)
	if err != nil {
		return err
	}
	if uid >= 0 && !trustedOwner(uid, c.holder) {
		return fmt.Errorf("the process listening at %s runs as uid %d, %s: %w", c.path, uid, whomTrusted(c.holder), ErrUntrusted)
	}
	return nil
}
