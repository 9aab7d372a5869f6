package hosts

import (
	"net/netip"
	"os"
	"slices"

	"github.com/tetherproc/tether/internal/proc"
)

// Local reports whether a is an address of this machine: a loopback or
// unspecified address, or one of the addresses of its network
// namespace's interfaces (/proc/net/fib_trie, /proc/net/if_inet6). A
// port at such an address is one of this machine's sockets.
func Local(a netip.Addr) bool {
	a = a.Unmap()
	if a.IsLoopback() || a.IsUnspecified() {
		return true
	}
	return slices.Contains(localAddrs(), a)
}

// localAddrs are the addresses of this network namespace's interfaces;
// none where /proc does not say (another system).
func localAddrs() []netip.Addr {
	var out []netip.Addr
	if b, err := os.ReadFile("/proc/net/fib_trie"); err == nil {
		out = append(out, proc.ParseFibTrie(b)...)
	}
	if b, err := os.ReadFile("/proc/net/if_inet6"); err == nil {
		out = append(out, proc.ParseIfInet6(b)...)
	}
	return out
}
