package sockets

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
)

// These run only on a Mac: the calls into libSystem themselves.

func TestLibSystemListsProcesses(t *testing.T) {
	pids, err := sys.allPIDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []int{1, os.Getpid(), os.Getppid()} {
		if !slices.Contains(pids, want) {
			t.Errorf("allPIDs (%d of them) lacks %d", len(pids), want)
		}
	}
	// The size query is an estimate with room to spare, never 0.
	if n, err := sys.listPIDs(procAllPIDs, 0, nil); err != nil || n < 4*len(pids)/2 {
		t.Errorf("proc_listpids size query = %d, %v for %d processes", n, err, len(pids))
	}
}

func TestLibSystemFindsOwnSockets(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	udp, err := net.ListenPacket("udp", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	client, err := net.Dial("tcp", tcp.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	socks, err := sys.sockets(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	tport, uport := uint16(tcp.Addr().(*net.TCPAddr).Port), uint16(udp.LocalAddr().(*net.UDPAddr).Port)
	var tcpSeen, udpSeen bool
	for fd, s := range socks {
		switch {
		case s.Proto == "tcp" && s.Port == tport && s.listener:
			tcpSeen = true
		case s.Proto == "udp" && s.Port == uport && s.listener:
			udpSeen = true
		case s.Proto == "tcp" && s.listener:
			t.Errorf("fd %d: %+v taken for a listener", fd, s)
		}
	}
	if !tcpSeen || !udpSeen {
		t.Errorf("sockets of this process = %+v; want the TCP listener on %d and the UDP socket on %d", socks, tport, uport)
	}
}

func TestLibSystemErrno(t *testing.T) {
	// A process that is gone: ESRCH, through the 0 answer and errno.
	cmd := exec.Command("/usr/bin/true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := sys.pidInfo(cmd.Process.Pid, procPIDListFDs, 0, nil); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("proc_pidinfo of reaped %d: %v; want ESRCH", cmd.Process.Pid, err)
	}
	// A descriptor that is not open.
	buf := make([]byte, socketFDInfoSize)
	if _, err := sys.pidFDInfo(os.Getpid(), 1<<20, procPIDFDSocketInfo, buf); err == nil {
		t.Error("proc_pidfdinfo of a closed descriptor: no error")
	}
	// launchd's descriptors are root's to read.
	if os.Geteuid() != 0 {
		if _, err := sys.sockets(1); err == nil {
			t.Error("sockets(1) as a user: no error")
		}
	}
}
