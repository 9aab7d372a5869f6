//go:build !unix

package engines

import (
	"context"
	"errors"
	"net"
)

// dialPeer has no unix socket to dial here, and no peer to check.
func (c *client) dialPeer(context.Context, string, string) (net.Conn, error) {
	return nil, errors.New("no unix sockets on this platform")
}
