package sockets

import (
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
)

func table(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "net", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseNetTable(t *testing.T) {
	tests := []struct {
		file string
		want []Socket
	}{
		{"tcp", []Socket{
			{Addr: netip.MustParseAddr("127.0.0.1"), Port: 38080, State: 0x0A, Inode: 285292},
			{Addr: netip.MustParseAddr("0.0.0.0"), Port: 2024, State: 0x0A, Inode: 1529},
			// Both ends of a connection: not listeners.
			{Addr: netip.MustParseAddr("127.0.0.1"), Port: 38080, State: 0x01, Inode: 285298},
			{Addr: netip.MustParseAddr("127.0.0.1"), Port: 38090, State: 0x01, Inode: 285297},
		}},
		{"tcp6", []Socket{
			{Addr: netip.MustParseAddr("::1"), Port: 38082, State: 0x0A, Inode: 0},
			{Addr: netip.MustParseAddr("::"), Port: 38081, State: 0x0A, Inode: 0},
		}},
		{"udp", []Socket{
			{Addr: netip.MustParseAddr("0.0.0.0"), Port: 38083, State: 0x07, Inode: 285295},
			{Addr: netip.MustParseAddr("127.0.0.1"), Port: 38091, State: 0x01, Inode: 285299},
		}},
		{"udp6", []Socket{
			{Addr: netip.MustParseAddr("::"), Port: 38084, State: 0x07, Inode: 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseNetTable(table(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d sockets, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Addr != w.Addr || g.Port != w.Port || g.State != w.State || (w.Inode != 0 && g.Inode != w.Inode) {
					t.Errorf("socket %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
	for _, bad := range []string{"short", "noheader"} {
		if _, err := ParseNetTable(table(t, bad)); err == nil {
			t.Errorf("ParseNetTable(%s): no error", bad)
		}
	}
}

func FuzzParseNetTable(f *testing.F) {
	for _, name := range []string{"tcp", "tcp6", "udp", "udp6", "short", "noheader"} {
		f.Add(table(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		socks, err := ParseNetTable(data)
		if err != nil {
			return
		}
		for _, s := range socks {
			if !s.Addr.IsValid() {
				t.Errorf("invalid address in %+v", s)
			}
		}
	})
}

// NetTable reads the tables of a process table on disk as it reads the
// live one.
func TestNetTableOfFS(t *testing.T) {
	fs := proc.NewFS("testdata/fs")
	socks, err := NetTable(fs, "tcp")
	if err != nil || len(socks) == 0 {
		t.Errorf("NetTable(tcp) = %v, %v; want the fixture's sockets", socks, err)
	}
	if socks, err := NetTable(fs, "tcp6"); err != nil || socks != nil {
		t.Errorf("NetTable(tcp6) of a kernel without it = %v, %v; want nothing", socks, err)
	}
}
