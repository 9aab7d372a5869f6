package engines

import "strconv"

// What the tests read the parsers through: the package itself calls
// parseCgroup, for the group too.

// ParseCgroup is parseCgroup's manager alone.
func ParseCgroup(data []byte) *Manager {
	m, _ := parseCgroup(data)
	return m
}

// ParseCgroupLine reads one line of /proc/PID/cgroup
// ("HIERARCHY-ID:CONTROLLERS:PATH") as ParseCgroup reads a file of that
// one line: a unit only from a v2 or name=systemd line.
func ParseCgroupLine(line string) *Manager {
	m, _ := parseCgroup([]byte(line))
	return m
}

// Args is the command line the proxy reads as p: ParseProxy(p.Args())
// is p.
func (p *Proxy) Args() []string {
	switch p.Program {
	case DockerProxy:
		args := []string{DockerProxy, "-proto", p.Proto}
		if p.HostIP != "" {
			args = append(args, "-host-ip", p.HostIP)
		}
		return append(args, "-host-port", strconv.Itoa(p.HostPort),
			"-container-ip", p.ContainerIP, "-container-port", strconv.Itoa(p.ContainerPort))
	case Conmon:
		args := []string{Conmon, "--api-version", "1", "-c", p.ID, "-u", p.ID}
		if p.Name != "" {
			args = append(args, "-n", p.Name)
		}
		return args
	case RootlessPort:
		return []string{RootlessPort}
	case Slirp4netns:
		args := []string{Slirp4netns, "--configure", "--mtu=65520"}
		if p.ID != "" {
			args = append(args, "--api-socket", "/run/user/1000/libpod/tmp/"+p.ID+".net")
		}
		return append(args, "4242", "tap0")
	case Pasta:
		args := []string{Pasta, "--config-net", "-t", "8080-8080:80-80"}
		if p.Netns != "" {
			args = append(args, "--netns", p.Netns)
		}
		return args
	case RootlessKit:
		args := []string{RootlessKit, "--net=slirp4netns", "--port-driver=builtin"}
		switch p.Engine {
		case Docker:
			args = append(args, "dockerd-rootless.sh")
		case Containerd:
			args = append(args, "containerd-rootless.sh")
		}
		return args
	}
	return nil
}
