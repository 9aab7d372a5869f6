package main

import (
	"testing"

	"github.com/tetherproc/tether/reclaim"
)

// A process manager's program, a rootless engine's container and a port
// proxy of an engine not known are named as tether has always named
// them (containers and units: TestStopCommand).
func TestManagerText(t *testing.T) {
	for _, tt := range []struct {
		m    *reclaim.Manager
		want string
	}{
		{&reclaim.Manager{Kind: reclaim.ByProcessManager, Engine: reclaim.Supervisord, Name: "web", Daemon: 321}, "supervisord program web (daemon 321)"},
		{&reclaim.Manager{Kind: reclaim.ByProcessManager, Engine: reclaim.PM2, Name: "api", Daemon: 321}, "pm2 process api (daemon 321)"},
		{&reclaim.Manager{Kind: reclaim.ByProcessManager, Engine: reclaim.PM2}, "pm2 process"},
		{&reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Podman, ID: idB, Name: "cache", Rootless: true, UID: 1001},
			"container cache (3e23e8160039) via Podman (rootless, uid 1001)"},
		{&reclaim.Manager{Kind: reclaim.ByContainer, Proxy: true, Helper: "rootlesskit"}, "container (unknown) via an engine not known (rootlesskit)"},
		{&reclaim.Manager{Kind: "other", Name: "x"}, "other x"},
	} {
		if got := managerText(tt.m); got != tt.want {
			t.Errorf("managerText(%+v) = %q, want %q", *tt.m, got, tt.want)
		}
	}
}
