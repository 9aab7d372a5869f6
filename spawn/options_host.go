//go:build linux || darwin

package spawn

// config is the Options the Host keeps its child's run by.
func (o ChildOptions) config() Options {
	c := Options{Stamp: o.Stamp, Markers: o.Markers, Signal: o.Signal, Grace: o.Grace}
	switch o.Cgroup {
	case CgroupWhereAllowed:
		c.Contain = ContainAuto
	case CgroupRequired:
		c.Contain = ContainCgroup
	}
	return c
}

// childOptions is the ChildOptions of a Host's child's resolved Options.
func (c Options) childOptions() ChildOptions {
	o := ChildOptions{Stamp: c.Stamp, Markers: c.Markers, Signal: c.Signal, Grace: c.Grace}
	switch c.Contain {
	case ContainAuto:
		o.Cgroup = CgroupWhereAllowed
	case ContainCgroup:
		o.Cgroup = CgroupRequired
	}
	return o
}
