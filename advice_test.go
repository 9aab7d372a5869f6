package main

import (
	"errors"
	"syscall"
	"testing"

	"github.com/tetherproc/tether/reclaim"
)

const (
	idA = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
	idB = "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d"
)

// The command a user runs to stop what a manager runs, for each kind,
// quoted for a shell where a name needs it; none where nothing stops it
// for good or nothing names it.
func TestStopCommand(t *testing.T) {
	tests := []struct {
		m         *reclaim.Manager
		str, stop string
	}{
		{&reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Docker, ID: idA, Name: "tb1", Image: "bb:1"},
			"container tb1 (bb:1, ca978112ca1b) via Docker", "docker stop tb1"},
		{&reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Docker, ID: idA, Name: "app-db-1", Image: "postgres:16", Project: "app", Service: "db"},
			"container app-db-1 (postgres:16, ca978112ca1b) via Docker, compose app/db", "docker stop app-db-1"},
		{&reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Docker, ID: idA, Name: "x", Project: "app"},
			"container x (ca978112ca1b) via Docker, compose app", "docker stop x"},
		{&reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Podman, ID: idB, Name: "cache", Image: "redis:7", Proxy: true},
			"container cache (redis:7, 3e23e8160039) via Podman", "podman stop cache"},
		// The engine could not be asked: the id is all there is.
		{&reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Docker, ID: idA, Unreachable: errors.New("no socket")},
			"container ca978112ca1b via Docker", "docker stop ca978112ca1b"},
		{&reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Containerd, ID: idA},
			"container ca978112ca1b via containerd", "nerdctl stop ca978112ca1b"},
		// The kubelet would start it again: no command stops it for good.
		{&reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Kubernetes, ID: idA}, "container ca978112ca1b via Kubernetes", ""},
		{&reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Docker, Proxy: true}, "container (unknown) via Docker", ""},
		{&reclaim.Manager{Kind: reclaim.ByUnit, Name: "nginx.service"}, "unit nginx.service", "systemctl stop nginx.service"},
		{&reclaim.Manager{Kind: reclaim.ByUnit, Name: "vite.service", User: true, UID: 1000}, "user unit vite.service", "systemctl --user stop vite.service"},
		{&reclaim.Manager{Kind: reclaim.ByUnit, Name: `openvpn-client@home\x2dvpn.service`}, `unit openvpn-client@home\x2dvpn.service`,
			`systemctl stop 'openvpn-client@home\x2dvpn.service'`},
		{&reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Docker, Name: "it's"}, "container it's via Docker", `docker stop 'it'\''s'`},
		{nil, "no manager", ""},
	}
	for _, tt := range tests {
		if got := managerText(tt.m); got != tt.str {
			t.Errorf("managerText = %q, want %q", got, tt.str)
		}
		if got := stopCommand(tt.m); got != tt.stop {
			t.Errorf("%s: stopCommand = %q, want %q", tt.str, got, tt.stop)
		}
	}
	for _, tt := range []struct {
		m    *reclaim.Manager
		stop string
	}{
		{&reclaim.Manager{Kind: reclaim.ByProcessManager, Engine: reclaim.PM2, Name: "api"}, "pm2 stop api"},
		{&reclaim.Manager{Kind: reclaim.ByProcessManager, Engine: reclaim.Supervisord, Name: "pool:w1"}, "supervisorctl stop pool:w1"},
		{&reclaim.Manager{Kind: reclaim.ByProcessManager, Engine: reclaim.Supervisord}, ""},
		{&reclaim.Manager{Kind: reclaim.ByUnit}, ""},
	} {
		if got := stopCommand(tt.m); got != tt.stop {
			t.Errorf("%s: stopCommand = %q, want %q", managerText(tt.m), got, tt.stop)
		}
	}
}

// A step's text names the signal, where it went, or the engine.
func TestStepText(t *testing.T) {
	for _, tc := range []struct {
		s    reclaim.Sent
		text string
	}{
		{reclaim.Sent{Signal: syscall.SIGTERM}, "TERM"},
		{reclaim.Sent{Signal: syscall.SIGKILL, ToSupervisor: true}, "KILL (to its supervisor)"},
		{reclaim.Sent{Engine: "Podman"}, "stopped through Podman"},
	} {
		if got := stepText(tc.s); got != tc.text {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.text)
		}
	}
}
