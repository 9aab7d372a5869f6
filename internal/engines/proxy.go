package engines

import (
	"fmt"
	"net/netip"
	"path"
	"strconv"
	"strings"
)

// The programs that hold a port for a container from outside it: an
// engine's helpers, which run beside the container, never in it.
const (
	DockerProxy  = "docker-proxy" // Docker's userland proxy, one per published port
	Conmon       = "conmon"       // Podman's container monitor, which holds a rootful container's published ports
	RootlessPort = "rootlessport" // rootless Podman's port forwarder (Podman 4's default)
	Slirp4netns  = "slirp4netns"  // user-mode networking; rootless Podman's port handler with port_handler=slirp4netns
	Pasta        = "pasta"        // user-mode networking and port forwarder: rootless Podman 5's default
	RootlessKit  = "rootlesskit"  // rootless Docker's (and containerd's) namespace keeper, whose builtin port driver listens on the host
)

// Proxy is what a container engine's helper says on its command line.
type Proxy struct {
	Program string // DockerProxy, Conmon, RootlessPort, Slirp4netns, Pasta or RootlessKit
	// Engine is Docker (docker-proxy, rootlesskit of dockerd-rootless.sh),
	// Podman (conmon, rootlessport, pasta, slirp4netns of a Podman
	// container) or containerd (rootlesskit of containerd-rootless.sh);
	// "" when the command line does not say (a slirp4netns or rootlesskit
	// started otherwise).
	Engine string
	// Rootless says the helper belongs to a user's own engine, run
	// without root: rootlessport, slirp4netns, pasta and rootlesskit
	// exist for nothing else.
	Rootless bool

	// docker-proxy's flags: the published port and where it leads.
	Proto         string // "tcp", "udp" or "sctp"
	HostIP        string // "" when not given (every address)
	HostPort      int
	ContainerIP   string
	ContainerPort int

	// conmon's: the container it monitors (-c, --cid; -n, --name);
	// slirp4netns's of a Podman container: the id in its API socket's
	// name (--api-socket …/ID.net).
	ID   string
	Name string

	// Netns is the network namespace pasta serves (--netns PATH): the
	// container's, as its engine names it (SandboxKey).
	Netns string
}

// ParseProxy reads a command line (/proc/PID/cmdline, split at its NULs)
// and returns the port proxy it is, by the base name of its first word:
// nil and no error when it is none. An error says that the program is a
// proxy's but its command line does not say what it needs: docker-proxy
// without its ports and container address, conmon without a container
// id; the Proxy returned with it still names the Program and its Engine.
// rootlessport is told its ports on its standard input, so its command
// line says nothing more: its listening sockets do.
func ParseProxy(argv []string) (*Proxy, error) {
	if len(argv) == 0 {
		return nil, nil
	}
	var p *Proxy
	var err error
	switch path.Base(argv[0]) {
	case DockerProxy:
		p, err = parseDockerProxy(argv[1:])
		if err != nil {
			p = &Proxy{Program: DockerProxy, Engine: Docker}
		}
	case Conmon:
		p, err = parseConmon(argv[1:])
		if err != nil {
			p = &Proxy{Program: Conmon, Engine: Podman}
		}
	case RootlessPort:
		p = &Proxy{Program: RootlessPort, Engine: Podman, Rootless: true}
	case Slirp4netns:
		p = parseSlirp4netns(argv[1:])
	case Pasta:
		p = &Proxy{Program: Pasta, Engine: Podman, Rootless: true, Netns: flagValue(argv[1:], "netns")}
	case RootlessKit:
		p = parseRootlessKit(argv[1:])
	}
	return p, err
}

// slirp4netns is Podman's port handler when the container's network is
// slirp4netns:port_handler=slirp4netns; Podman names its API socket
// after the container, $XDG_RUNTIME_DIR/libpod/tmp/ID.net (or
// …/slirp4netns-ID.sock on older versions). Without such a name it is
// someone else's (rootlesskit's, for rootless Docker's slirp4netns port
// driver): its engine is then for its ancestors to say.
func parseSlirp4netns(args []string) *Proxy {
	p := &Proxy{Program: Slirp4netns, Rootless: true}
	sock := option(args, "a", "api-socket", func(v string) bool { return v != "" })
	base := path.Base(sock)
	for _, name := range []string{strings.TrimSuffix(base, ".net"), strings.TrimSuffix(strings.TrimPrefix(base, "slirp4netns-"), ".sock")} {
		if name != base && isID(name) {
			p.Engine, p.ID = Podman, name
			break
		}
	}
	return p
}

// rootlesskit runs the engine's launcher as its child command, its
// first argument that is not an option: dockerd-rootless.sh (or dockerd)
// for Docker, containerd-rootless.sh for containerd. With its builtin
// port driver (the default) it is rootlesskit itself that listens on
// the host for every published port.
func parseRootlessKit(args []string) *Proxy {
	p := &Proxy{Program: RootlessKit, Rootless: true}
	for _, a := range args {
		switch path.Base(a) {
		case "dockerd-rootless.sh", "dockerd":
			p.Engine = Docker
			return p
		case "containerd-rootless.sh", "containerd":
			p.Engine = Containerd
			return p
		}
	}
	return p
}

// flagValue is the value of a Go flag package option: -name VALUE,
// --name VALUE, -name=VALUE or --name=VALUE.
func flagValue(args []string, name string) string {
	for i, a := range args {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		switch {
		case a == name && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, name+"="):
			return a[len(name)+1:]
		}
	}
	return ""
}

// docker-proxy parses its flags with Go's flag package: "-name value",
// "-name=value", one dash or two, up to the first argument that is not a
// flag or "--". Flags it may know that this does not are skipped, with
// the next argument when that is not a flag itself.
func parseDockerProxy(args []string) (*Proxy, error) {
	p := &Proxy{Program: DockerProxy, Engine: Docker, Proto: "tcp"}
	values := map[string]bool{
		"proto": true, "host-ip": true, "host-port": true, "host-port-end": true,
		"container-ip": true, "container-port": true, "container-port-end": true,
	}
	bools := map[string]bool{"use-listen-fd": true}
	seen := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			break
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		name, value, hasValue := strings.Cut(name, "=")
		switch {
		case bools[name]:
			continue
		case values[name]:
			if !hasValue {
				if i+1 >= len(args) {
					return nil, fmt.Errorf("docker-proxy flag -%s: no value", name)
				}
				i++
				value = args[i]
			}
			seen[name] = value
		case !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			i++
		}
	}
	if v, ok := seen["proto"]; ok {
		p.Proto = v
	}
	switch p.Proto {
	case "tcp", "udp", "sctp":
	default:
		return nil, fmt.Errorf("docker-proxy -proto %q: not tcp, udp or sctp", p.Proto)
	}
	var err error
	if v := seen["host-ip"]; v != "" {
		if p.HostIP, err = parseIP("-host-ip", v); err != nil {
			return nil, err
		}
	}
	v, ok := seen["container-ip"]
	if !ok {
		return nil, fmt.Errorf("docker-proxy: no -container-ip")
	}
	if p.ContainerIP, err = parseIP("-container-ip", v); err != nil {
		return nil, err
	}
	if p.HostPort, err = parsePort(seen, "host-port"); err != nil {
		return nil, err
	}
	if p.ContainerPort, err = parsePort(seen, "container-port"); err != nil {
		return nil, err
	}
	return p, nil
}

func parseIP(flag, v string) (string, error) {
	ip, err := netip.ParseAddr(v)
	if err != nil || ip.Zone() != "" {
		return "", fmt.Errorf("docker-proxy %s %q: not an IP address", flag, v)
	}
	return ip.String(), nil
}

func parsePort(seen map[string]string, name string) (int, error) {
	v, ok := seen[name]
	if !ok {
		return 0, fmt.Errorf("docker-proxy: no -%s", name)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != v {
		return 0, fmt.Errorf("docker-proxy -%s %q: not a port", name, v)
	}
	return n, nil
}

// conmon parses its options with GLib's GOption: "-c ID", "-cID", "--cid
// ID", "--cid=ID". Its other options are many and change between
// versions, so rather than its whole table the first -c (or --cid) whose
// value is a container id is taken; Podman writes it among the first
// arguments, before any value that could look like it.
func parseConmon(args []string) (*Proxy, error) {
	p := &Proxy{Program: Conmon, Engine: Podman}
	id := option(args, "c", "cid", isID)
	if id == "" {
		return nil, fmt.Errorf("conmon: no -c (--cid) with a container id among %d arguments", len(args))
	}
	p.ID = id
	p.Name = option(args, "n", "name", isContainerName)
	return p, nil
}

// option finds the value of the GOption -short or --long that first
// satisfies ok.
func option(args []string, short, long string, ok func(string) bool) string {
	for i, a := range args {
		var v string
		switch {
		case a == "--":
			return ""
		case a == "-"+short || a == "--"+long:
			if i+1 < len(args) {
				v = args[i+1]
			}
		case strings.HasPrefix(a, "--"+long+"="):
			v = a[len("--"+long+"="):]
		case strings.HasPrefix(a, "-"+short) && !strings.HasPrefix(a, "--"):
			v = a[1+len(short):]
		default:
			continue
		}
		if ok(v) {
			return v
		}
	}
	return ""
}

// isContainerName reports whether s is a name as Docker and Podman allow
// them: [a-zA-Z0-9][a-zA-Z0-9_.-]*.
func isContainerName(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || strings.IndexByte("_.-", c) < 0) {
			return false
		}
	}
	return true
}
