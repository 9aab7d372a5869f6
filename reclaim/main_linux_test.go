package reclaim_test

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/tetherproc/tether/internal/proctest"
)

func TestMain(m *testing.M) {
	proctest.Helper(map[string]func(){
		// listen serves PROCTEST_LISTEN (tcp4, tcp6, udp4 or udp6) on a
		// loopback port, prints the port, and waits for stdin to close.
		"listen": func() {
			var port int
			switch kind := os.Getenv("PROCTEST_LISTEN"); kind {
			case "tcp4", "tcp6":
				addr := map[string]string{"tcp4": "127.0.0.1:0", "tcp6": "[::1]:0"}[kind]
				l, err := net.Listen(kind, addr)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				port = l.Addr().(*net.TCPAddr).Port
			default:
				addr := map[string]string{"udp4": "127.0.0.1:0", "udp6": "[::1]:0"}[kind]
				c, err := net.ListenPacket(kind, addr)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				port = c.LocalAddr().(*net.UDPAddr).Port
			}
			if os.Getenv("PROCTEST_IGNORE_TERM") != "" {
				signal.Ignore(syscall.SIGTERM)
			}
			fmt.Println(port)
			_, _ = io.Copy(io.Discard, os.Stdin)
		},
		// ignore-term waits for stdin to close, and only KILL ends it
		// before that.
		"ignore-term": func() {
			signal.Ignore(syscall.SIGTERM)
			fmt.Println("ready")
			_, _ = io.Copy(io.Discard, os.Stdin)
		},
	})
	os.Exit(proctest.Run(m))
}
