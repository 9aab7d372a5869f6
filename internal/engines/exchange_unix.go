//go:build unix

package engines

import (
	"context"
	"fmt"
	"net"
)

// dialPeer connects to the engine's socket, whatever address the
// transport asks for (the placeholder's), and checks who listens there
// before the connection is used: no request goes to a process of a user
// not trusted, whoever owns the socket file.
func (c *client) dialPeer(ctx context.Context, _, _ string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", c.path)
	if err != nil {
		return nil, err
	}
	if err := c.checkConn(conn); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// checkConn checks the peer of conn by its descriptor, where the kernel
// keeps the peer's credentials: lent through Control, so that the
// connection stays the runtime's to poll and close.
func (c *client) checkConn(conn net.Conn) error {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("%T is not a unix socket's connection", conn)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var checked error
	if err := raw.Control(func(fd uintptr) { checked = c.checkPeer(int(fd)) }); err != nil {
		return err
	}
	return checked
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
