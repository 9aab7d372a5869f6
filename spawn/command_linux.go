package spawn

import (
	"os/exec"
	"syscall"
)

// Prepare tethers cmd before it is started, as [exec.Cmd] is prepared
// before [exec.Cmd.Start]: it stamps the markers of cfg into cmd.Env
// (os.Environ() when nil) and arms the parent-death signal and a new
// process group through cmd.SysProcAttr (its other fields are kept). Of
// cfg only the stamping fields count: Name, Markers, Signal, RunID and
// Supervisor. It returns cfg with their defaults filled in, the run id
// among them. Start the command with [Start], never cmd.Start.
func Prepare(cmd *exec.Cmd, cfg Config) (Config, error) {
	cfg, err := cfg.resolve(cmd.Path)
	if err != nil {
		return cfg, err
	}
	cmd.Env = cfg.environ(cmd.Env)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cfg.arm(cmd.SysProcAttr)
	return cfg, nil
}

// arm gives a child the parent-death signal and a process group of its
// own, the two things every tethered child is started with.
func (c Config) arm(a *syscall.SysProcAttr) {
	a.Pdeathsig = c.Signal
	a.Setpgid = true
}

// Start starts a cmd made ready by [Prepare] from the spawner thread, so
// that its parent-death signal fires when this process exits, not when
// some thread of it does. Wait for it with cmd.Wait as usual.
func Start(cmd *exec.Cmd) error {
	return startOnSpawner(cmd)
}

// startOnSpawner runs cmd.Start on the spawner thread.
func startOnSpawner(cmd *exec.Cmd) error {
	return onSpawner(startRequest{cmd: cmd})
}
