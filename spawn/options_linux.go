package spawn

// config is the Config the Host keeps its child's run by.
func (o ChildOptions) config() Config {
	c := Config{Stamp: o.Stamp, Grace: o.Grace}
	switch o.Cgroup {
	case CgroupWhereAllowed:
		c.Contain = ContainAuto
	case CgroupRequired:
		c.Contain = ContainCgroup
	}
	return c
}

// childOptions is the ChildOptions of a Host's child's resolved Config.
func (c Config) childOptions() ChildOptions {
	o := ChildOptions{Stamp: c.Stamp, Grace: c.Grace}
	switch c.Contain {
	case ContainAuto:
		o.Cgroup = CgroupWhereAllowed
	case ContainCgroup:
		o.Cgroup = CgroupRequired
	}
	return o
}
