package engines

import (
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/sockets"
)

// monitorOf finds, without asking an engine, the conmon of the
// container whose network namespace helper pid serves, among the
// processes of uid: conmon's command line names the container, so that a
// user can be told which one to stop. Pasta's --netns names the
// namespace. Rootlessport's child process runs in it, and a thread of
// its own may (its main thread, as its runtime happened to schedule it;
// under load, none), so every namespace the helper's threads and its
// children's are in is a candidate. The container's is told from the
// host's by conmon, which runs outside the container: its child, the
// container's first process, is in a namespace other than conmon's own. It reads every process's command line, and is used only
// when no engine answered. nil for none found.
func monitorOf(fs proc.FS, pid int, p *Proxy, uid int) *Proxy {
	targets := map[uint64]bool{}
	if p.Program == Pasta {
		if p.Netns == "" || !filepath.IsAbs(p.Netns) {
			return nil
		}
		targets[netnsInode(p.Netns)] = true
	} else {
		for _, of := range append([]int{pid}, ptree.Children(fs, pid)...) {
			for _, dir := range namespaceDirs(fs, of) {
				targets[netnsInode(fs.Path(of, dir+"ns/net"))] = true
			}
		}
	}
	delete(targets, 0)
	if len(targets) == 0 {
		return nil
	}
	entries, err := os.ReadDir(fs.Root())
	if err != nil {
		return nil
	}
	for _, e := range entries {
		mon, err := strconv.Atoi(e.Name())
		if err != nil || mon <= 1 || mon == pid {
			continue
		}
		argv, err := fs.Cmdline(mon)
		if err != nil || len(argv) == 0 || filepath.Base(argv[0]) != Conmon {
			continue
		}
		c, err := ParseProxy(argv)
		if err != nil || c == nil || c.Program != Conmon {
			continue
		}
		if st, err := fs.Status(mon); err != nil || st.UID != uid {
			continue
		}
		data, err := os.ReadFile(fs.Path(mon, "task/"+e.Name()+"/children"))
		if err != nil {
			continue
		}
		own := netnsInode(fs.Path(mon, "ns/net"))
		for _, kid := range splitPIDs(data) {
			if ns := netnsInode(fs.Path(kid, "ns/net")); ns != own && targets[ns] {
				return c
			}
		}
	}
	return nil
}

// shimOf finds, without asking an engine, the id of the Docker
// container that has address ip (a docker-proxy's -container-ip): its
// containerd shim's command line names it (-namespace moby -id ID), and
// the shim's child, the container's first process, has ip among its
// network namespace's addresses. It reads every process's command line,
// and is used only when no engine answered. "" for none found.
func shimOf(fs proc.FS, ip string) string {
	want, err := netip.ParseAddr(ip)
	if err != nil {
		return ""
	}
	entries, err := os.ReadDir(fs.Root())
	if err != nil {
		return ""
	}
	for _, e := range entries {
		shim, err := strconv.Atoi(e.Name())
		if err != nil || shim <= 1 {
			continue
		}
		argv, err := fs.Cmdline(shim)
		if err != nil || len(argv) == 0 || !strings.HasPrefix(filepath.Base(argv[0]), "containerd-shim") {
			continue
		}
		id := flagValue(argv[1:], "id")
		if flagValue(argv[1:], "namespace") != "moby" || !isID(id) {
			continue
		}
		data, err := os.ReadFile(fs.Path(shim, "task/"+e.Name()+"/children"))
		if err != nil {
			continue
		}
		for _, kid := range splitPIDs(data) {
			var addrs []netip.Addr
			if want.Is4() {
				b, _ := os.ReadFile(fs.Path(kid, "net/fib_trie"))
				addrs = sockets.ParseFibTrie(b)
			} else {
				b, _ := os.ReadFile(fs.Path(kid, "net/if_inet6"))
				addrs = sockets.ParseIfInet6(b)
			}
			if slices.Contains(addrs, want.Unmap()) {
				return id
			}
		}
	}
	return ""
}

// netnsInode is the inode of a network namespace file (/proc/PID/ns/net,
// or a bind mount of one such as Podman's netns files); 0 when it cannot
// be read.
func netnsInode(path string) uint64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// splitPIDs reads a children list: PIDs, each followed by a space.
func splitPIDs(data []byte) []int {
	var out []int
	n, in := 0, false
	for _, c := range data {
		if c >= '0' && c <= '9' {
			n, in = n*10+int(c-'0'), true
			continue
		}
		if in {
			out = append(out, n)
		}
		n, in = 0, false
	}
	if in {
		out = append(out, n)
	}
	return out
}
