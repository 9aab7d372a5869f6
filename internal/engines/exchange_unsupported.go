//go:build !unix

package engines

import (
	"errors"
	"time"
)

// exchange has no unix socket to speak over here.
func (c *client) exchange(string, string, time.Time) (answer, error) {
	return answer{}, errors.New("no unix sockets on this platform")
}
