package main

import (
	"time"

	"github.com/tetherproc/tether/internal/readiness"
)

// waitReport is tether wait --json.
type waitReport struct {
	Ready     bool           `json:"ready"`
	PIDGone   bool           `json:"pid_gone,omitempty"`
	TimedOut  bool           `json:"timed_out,omitempty"`
	ElapsedMS int64          `json:"elapsed_ms"`
	Ports     []waitPortJSON `json:"ports"` // [] when no port was waited for
	Targets   []targetJSON   `json:"targets,omitempty"`
}

// waitPortJSON is a readiness.Port: a port as the wait left it, and its
// holders, each as a reclaim's results show a process.
type waitPortJSON struct {
	Port         uint16         `json:"port"`
	Ready        bool           `json:"ready"`
	Listeners    []listenerJSON `json:"listeners,omitempty"`
	Holders      []processJSON  `json:"holders,omitempty"`
	Others       []processJSON  `json:"others,omitempty"`
	Free         bool           `json:"free"`
	HiddenOwners []int          `json:"hidden_owners,omitempty"`
	URL          string         `json:"url,omitempty"`
	HTTPStatus   int            `json:"http_status,omitempty"`
	HTTPError    string         `json:"http_error,omitempty"`
}

// targetJSON is a readiness.Target: a resource besides the ports.
type targetJSON struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Ready      bool   `json:"ready"`
	Detail     string `json:"detail,omitempty"`
	HTTPStatus int    `json:"http_status,omitempty"`
}

// waitJSON is what tether wait --json prints of res, a wait that took
// elapsed.
func waitJSON(res readiness.Result, elapsed time.Duration) waitReport {
	rep := waitReport{
		Ready: res.Ready, PIDGone: res.PIDGone, TimedOut: !res.Ready && !res.PIDGone,
		ElapsedMS: elapsed.Milliseconds(), Ports: make([]waitPortJSON, len(res.Ports)),
	}
	for i, p := range res.Ports {
		rep.Ports[i] = waitPortJSON{
			Port: p.Port, Ready: p.Ready, Listeners: listenersOf(p.Listeners),
			Holders: holdersOf(p.Holders), Others: holdersOf(p.Others), Free: p.Free,
			HiddenOwners: p.HiddenOwners, URL: p.URL, HTTPStatus: p.HTTPStatus, HTTPError: p.HTTPError,
		}
	}
	for _, t := range res.Targets {
		rep.Targets = append(rep.Targets, targetJSON{Kind: t.Kind, Name: t.Name, Ready: t.Ready, Detail: t.Detail, HTTPStatus: t.HTTPStatus})
	}
	return rep
}

// holdersOf are the holders of a port, each as a reclaim's results show
// a process (no manager: a wait asks no engine).
func holdersOf(hs []readiness.Holder) []processJSON {
	var out []processJSON
	for _, h := range hs {
		out = append(out, processJSON{reportJSON: reportOf(h.Report), Ports: listenersOf(h.Ports), Protected: protectedText(h.Protected)})
	}
	return out
}
