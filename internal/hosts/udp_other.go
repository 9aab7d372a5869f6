//go:build !unix

package hosts

import (
	"errors"
	"net/netip"
	"time"
)

func exchangeUDP(netip.AddrPort, []byte, time.Time) ([]byte, error) {
	return nil, errors.New("no DNS client on this platform")
}
