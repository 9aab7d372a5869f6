package main

import (
	"net/netip"

	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/reclaim"
)

// How every command's --json shows a process: the fields of tether
// check --json, and for a process found by ps, reclaim or wait, its
// listeners and who runs it. The library's types are Go values; these
// are the JSON objects made of them, field for field, and the only
// place the JSON names are written.

// reportJSON is a probe.Report. Fields that could not be learned are
// left out.
type reportJSON struct {
	PID       int    `json:"pid"`
	Verdict   string `json:"verdict"`
	Tethered  bool   `json:"tethered"`
	Reason    string `json:"reason,omitempty"`
	PPID      int    `json:"ppid,omitempty"`
	PGID      int    `json:"pgid,omitempty"`
	UID       *int   `json:"uid,omitempty"`
	StartTime uint64 `json:"start_time,omitempty"`
	Comm      string `json:"comm,omitempty"`
	Name      string `json:"name,omitempty"`
	RunID     string `json:"run_id,omitempty"`
	// Container is the container's text: "cgroup:PATH",
	// "pidns:init=PID" or "record:RUNID".
	Container  string          `json:"container,omitempty"`
	Supervisor *supervisorJSON `json:"supervisor,omitempty"`
	Command    []string        `json:"command,omitempty"`
}

// supervisorJSON is a probe.SupervisorReport.
type supervisorJSON struct {
	PID       int    `json:"pid"`
	StartTime uint64 `json:"start_time"`
	State     string `json:"state"`
	Namespace uint64 `json:"pid_namespace,omitempty"`
	HostPID   int    `json:"host_pid,omitempty"`
}

func reportOf(r probe.Report) reportJSON {
	j := reportJSON{
		PID: r.PID, Verdict: string(r.Verdict), Tethered: r.Tethered, Reason: reasonText(r),
		PPID: r.PPID, PGID: r.PGID, UID: r.UID, StartTime: r.StartTime, Comm: r.Comm,
		Name: r.Name, RunID: r.RunID, Command: r.Command,
	}
	if c := r.Container; c != nil {
		j.Container = tieText(*c)
	}
	if s := r.Supervisor; s != nil {
		j.Supervisor = &supervisorJSON{PID: s.PID, StartTime: s.StartTime, State: string(s.State), Namespace: s.Namespace, HostPID: s.HostPID}
	}
	return j
}

// processJSON is a reclaim.Process: a process found, with the listeners
// it holds, why it is never signalled, and who runs it.
type processJSON struct {
	reportJSON
	Ports     []listenerJSON `json:"ports,omitempty"`
	Protected string         `json:"protected,omitempty"`
	Manager   *managerJSON   `json:"manager,omitempty"`
}

func processOf(p reclaim.Process) processJSON {
	return processJSON{reportJSON: reportOf(p.Report), Ports: listenersOf(p.Ports), Protected: protectedText(p.Protected), Manager: managerOf(p.Manager)}
}

// listenerJSON is a reclaim.Listener, less its owner and inode.
type listenerJSON struct {
	Proto string     `json:"proto"`
	Addr  netip.Addr `json:"addr"`
	Port  uint16     `json:"port"`
}

func listenersOf(ls []reclaim.Listener) []listenerJSON {
	if ls == nil {
		return nil
	}
	out := make([]listenerJSON, len(ls))
	for i, l := range ls {
		out[i] = listenerJSON{Proto: l.Proto, Addr: l.Addr, Port: l.Port}
	}
	return out
}

// managerJSON is a reclaim.Manager, less why its engine could not be
// asked.
type managerJSON struct {
	Kind     string `json:"kind"`
	Engine   string `json:"engine,omitempty"`
	ID       string `json:"id,omitempty"`
	Name     string `json:"name,omitempty"`
	Image    string `json:"image,omitempty"`
	Project  string `json:"compose_project,omitempty"`
	Service  string `json:"compose_service,omitempty"`
	User     bool   `json:"user,omitempty"`
	Rootless bool   `json:"rootless,omitempty"`
	UID      int    `json:"uid,omitempty"`
	Proxy    bool   `json:"proxy,omitempty"`
	Helper   string `json:"helper,omitempty"`
	Daemon   int    `json:"daemon_pid,omitempty"`
	Socket   string `json:"engine_socket,omitempty"`
}

func managerOf(m *reclaim.Manager) *managerJSON {
	if m == nil {
		return nil
	}
	return &managerJSON{
		Kind: string(m.Kind), Engine: m.Engine, ID: m.ID, Name: m.Name, Image: m.Image,
		Project: m.Project, Service: m.Service, User: m.User, Rootless: m.Rootless, UID: m.UID,
		Proxy: m.Proxy, Helper: m.Helper, Daemon: m.Daemon, Socket: m.Socket,
	}
}

// checkReport is tether check --json: the report, and who runs the
// process when it is not tether's.
type checkReport struct {
	reportJSON
	Manager *managerJSON `json:"manager,omitempty"`
}

// checkJSON is what tether check --json prints.
func checkJSON(r probe.Report, managed *reclaim.Manager) checkReport {
	return checkReport{reportJSON: reportOf(r), Manager: managerOf(managed)}
}
