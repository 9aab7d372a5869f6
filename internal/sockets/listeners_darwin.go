package sockets

import (
	"os"
	"strconv"

	"github.com/tetherproc/tether/internal/lsof"
	"github.com/tetherproc/tether/internal/proc"
)

// listeners returns the sockets that serve a port, by socket; with ports
// given, only those ports. macOS has no table of sockets: every process's
// descriptors are read through libproc (those of other users only as
// root). Where libproc is refused even tether's own, lsof answers.
func listeners(ports map[uint16]bool) (map[uint64]Listener, error) {
	if _, err := sys.sockets(os.Getpid()); err != nil {
		return lsofListeners(ports)
	}
	pids, err := sys.allPIDs()
	if err != nil {
		return nil, err
	}
	out := map[uint64]Listener{}
	for _, pid := range pids {
		socks, err := sys.sockets(pid)
		if err != nil {
			continue // another user's, or gone
		}
		for _, s := range socks {
			if s.listener && (ports == nil || ports[s.Port]) {
				// The socket's owner is its holder's user.
				if p, err := proc.Host().Process(pid); err == nil {
					s.UID = p.UID
				}
				out[s.id] = s.Listener
			}
		}
	}
	return out, nil
}

// holders finds the processes that hold the listeners: every process's,
// or only those of pids when given.
func holders(ls map[uint64]Listener, pids []int) ([]Holder, error) {
	if len(ls) == 0 || (pids != nil && len(pids) == 0) {
		return nil, nil
	}
	var out []Holder
	var kernel bool
	for key, l := range ls {
		if pid, ok := lsofHolder(key); ok {
			out = append(out, Holder{PID: pid, Listener: l})
		} else {
			kernel = true
		}
	}
	if !kernel {
		return out, nil
	}
	if pids == nil {
		var err error
		if pids, err = sys.allPIDs(); err != nil {
			return nil, err
		}
	}
	for _, pid := range pids {
		socks, err := sys.sockets(pid)
		if err != nil {
			continue
		}
		for _, s := range socks {
			if l, ok := ls[s.id]; ok {
				out = append(out, Holder{PID: pid, Listener: l})
			}
		}
	}
	return out, nil
}

// lsofListeners is listeners from lsof's field output (lsof is always
// there on macOS, in /usr/sbin).
func lsofListeners(ports map[uint16]bool) (map[uint64]Listener, error) {
	out := map[uint64]Listener{}
	for _, q := range []struct{ proto, sel string }{{"tcp", "-iTCP"}, {"udp", "-iUDP"}} {
		args := []string{"-nP", "-F", "pcfunt"}
		if len(ports) == 0 {
			args = append(args, q.sel)
		}
		for p := range ports {
			args = append(args, q.sel+":"+strconv.Itoa(int(p)))
		}
		if q.proto == "tcp" {
			args = append(args, "-sTCP:LISTEN")
		}
		data, err := lsof.Output(args...)
		if err != nil {
			return nil, err
		}
		for k, l := range parseLsof(data, q.proto) {
			if ports == nil || ports[l.Port] {
				out[k] = l
			}
		}
	}
	return out, nil
}
