package spawn

import (
	"os/exec"
	"syscall"
)

// Prepare tethers cmd before it is started: it stamps the markers into
// cmd.Env (os.Environ() when nil), and arms the parent-death signal and a
// new process group through cmd.SysProcAttr (other SysProcAttr fields are
// kept). It returns the options with their defaults filled in, the run id
// among them.
func Prepare(cmd *exec.Cmd, opts Options) (Options, error) {
	opts, err := opts.resolve(cmd.Path)
	if err != nil {
		return opts, err
	}
	cmd.Env = opts.environ(cmd.Env)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	opts.arm(cmd.SysProcAttr)
	return opts, nil
}

// arm gives a child the parent-death signal and a process group of its
// own, the two things every tethered child is started with.
func (o Options) arm(a *syscall.SysProcAttr) {
	a.Pdeathsig = o.Signal
	a.Setpgid = true
}

// Start starts a prepared cmd from the spawner thread, so that its
// parent-death signal fires when this process exits, not when some thread
// of it does. Wait for it with cmd.Wait as usual.
func Start(cmd *exec.Cmd) error {
	return startOnSpawner(cmd)
}
