package proc_test

import (
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
)

func table(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "proc", "net", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseNetTable(t *testing.T) {
	tests := []struct {
		file string
		want []proc.Socket
	}{
		{"tcp", []proc.Socket{
			{Addr: netip.MustParseAddr("127.0.0.1"), Port: 38080, State: 0x0A, Inode: 285292},
			{Addr: netip.MustParseAddr("0.0.0.0"), Port: 2024, State: 0x0A, Inode: 1529},
			// Both ends of a connection: not listeners.
			{Addr: netip.MustParseAddr("127.0.0.1"), Port: 38080, State: 0x01, Inode: 285298},
			{Addr: netip.MustParseAddr("127.0.0.1"), Port: 38090, State: 0x01, Inode: 285297},
		}},
		{"tcp6", []proc.Socket{
			{Addr: netip.MustParseAddr("::1"), Port: 38082, State: 0x0A, Inode: 0},
			{Addr: netip.MustParseAddr("::"), Port: 38081, State: 0x0A, Inode: 0},
		}},
		{"udp", []proc.Socket{
			{Addr: netip.MustParseAddr("0.0.0.0"), Port: 38083, State: 0x07, Inode: 285295},
			{Addr: netip.MustParseAddr("127.0.0.1"), Port: 38091, State: 0x01, Inode: 285299},
		}},
		{"udp6", []proc.Socket{
			{Addr: netip.MustParseAddr("::"), Port: 38084, State: 0x07, Inode: 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := proc.ParseNetTable(table(t, tt.file))
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
		if _, err := proc.ParseNetTable(table(t, bad)); err == nil {
			t.Errorf("ParseNetTable(%s): no error", bad)
		}
	}
}

func FuzzParseNetTable(f *testing.F) {
	for _, name := range []string{"tcp", "tcp6", "udp", "udp6", "short", "noheader"} {
		f.Add(table(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		socks, err := proc.ParseNetTable(data)
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
