package reclaim

import (
	"errors"
	"fmt"
	"time"

	"github.com/tetherproc/tether/internal/engines"
	"github.com/tetherproc/tether/internal/trace"
)

// A container that holds a selected port is stopped through its engine,
// never by a signal to a process of it: this file holds that path.

// stopContainers stops, through its engine, each container that holds
// a selected port (once, however many of its processes hold one), never
// by signalling a process of it or its port proxy: the engine would
// restart the one or keep a mapping to the gone other. The engine gives
// it grace, then kills it. Nothing is signalled where the engine cannot
// be asked: the result says why, and how the container is stopped.
func stopContainers(held []*Result, grace time.Duration) {
	byContainer := map[string][]*Result{}
	var order []string
	for _, r := range held {
		key := r.Manager.ID
		if key == "" {
			key = fmt.Sprintf("pid %d", r.PID) // not known to its engine
		}
		if byContainer[key] == nil {
			order = append(order, key)
		}
		byContainer[key] = append(byContainer[key], r)
	}
	for _, key := range order {
		rs := byContainer[key]
		m := rs[0].Manager
		outcome, cause := Gone, Cause{}
		switch err := stopContainer(m, grace); {
		case err == nil:
		case errors.Is(err, engines.ErrGone):
			outcome = AlreadyGone
		default:
			outcome, cause = Failed, Cause{Kind: EngineFailed, Err: err, Manager: m, Port: firstPort(rs[0].Ports)}
		}
		for _, r := range rs {
			r.Outcome, r.Cause = outcome, cause
			if outcome != Failed {
				r.Signals = []Sent{{Engine: m.Engine}}
			}
		}
	}
}

// stoppable says why the container m cannot be stopped through its
// engine; nil when it can be asked.
func stoppable(m *Manager) error {
	if m.Unreachable != nil {
		return m.Unreachable
	}
	if m.ID == "" {
		return errors.New("its engine named no container for it")
	}
	return nil
}

// stopContainer stops m through its engine, when it can be asked.
func stopContainer(m *Manager, grace time.Duration) error {
	if err := stoppable(m); err != nil {
		return err
	}
	trace.Printf("reclaim: container %s: stop through its %s engine at %s, grace %v", engines.ShortID(m.ID), m.Engine, m.Socket, grace)
	return engines.Stop(m, grace)
}
