package engines

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"time"
)

// Stop stops the container m names through its engine's API, as `docker
// stop` does: POST /containers/{id}/stop?t=SECONDS, the grace rounded up
// to whole seconds (at least 0), after which the engine KILLs the
// container; the call waits for the engine's answer, which comes once the
// container is stopped, for the grace and five seconds more.
//
// It returns nil once the container is stopped (or was already: 304),
// ErrGone when the engine no longer knows it (removed between lookup and
// stop: not a failure to report as one), and an *Error naming the socket
// and the call otherwise: no socket to ask (m.Unreachable then says
// why), a socket that is not trusted, no answer in time, an answer that
// is not the API's, a refusal. Nothing is signalled here: the engine
// does it, and only to its container.
func Stop(m *Manager, grace time.Duration) error {
	if m == nil || m.Kind != Container {
		return &Error{Op: "stop", Err: errors.New("not a container")}
	}
	op := "POST /containers/" + url.PathEscape(m.ID) + "/stop"
	if m.ID == "" {
		return &Error{Socket: m.Socket, Op: op, Err: errors.New("the container's id is not known")}
	}
	if m.Socket == "" {
		err := m.Unreachable
		if err == nil {
			err = errors.New("no engine socket to ask")
		}
		return &Error{Op: op, Err: err}
	}
	c, err := dial(m.Socket, m.holder)
	if err != nil {
		return &Error{Socket: m.Socket, Op: op, Err: err}
	}
	c.api = m.api
	if c.api == "" {
		if err := c.version(); err != nil {
			return err
		}
	}
	if err := c.stop(m.ID, graceSeconds(grace)); err != nil {
		if errors.Is(err, ErrGone) {
			return ErrGone
		}
		return err
	}
	// The engine answers once the container has stopped. Should one
	// answer before, its own word that the container still runs is a
	// failure; a look that fails says nothing against the answer.
	if info, err := c.inspect(m.ID); err == nil && info.State.Running {
		return &Error{Socket: m.Socket, Op: op, Err: fmt.Errorf("the engine answered, yet container %s still runs", ShortID(m.ID))}
	}
	return nil
}

// graceSeconds is the grace in whole seconds, rounded up: a container
// is given at least what it was promised.
func graceSeconds(grace time.Duration) int {
	if grace <= 0 {
		return 0
	}
	s := math.Ceil(grace.Seconds())
	if s > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(s)
}
