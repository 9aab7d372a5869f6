package spawn

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// Start tethers cmd and starts it, in place of [exec.Cmd.Start]: it
// stamps the markers of cfg into cmd.Env (os.Environ() when nil), arms
// the parent-death signal and a new process group through
// cmd.SysProcAttr (its other fields are kept), and starts cmd from the
// spawner thread, so that the signal fires when this process exits, not
// when some thread of it does. Of cfg only the stamping fields count:
// Name, Markers, Signal, RunID and Supervisor. It returns cfg with their
// defaults filled in, the run id among them. cmd stays the caller's:
// wait for it with cmd.Wait as usual.
func Start(cmd *exec.Cmd, cfg Config) (Config, error) {
	cfg, err := cfg.resolve(cmd.Path)
	if err != nil {
		return cfg, err
	}
	cmd.Env = cfg.environ(cmd.Env)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cfg.arm(cmd.SysProcAttr)
	return cfg, onSpawner(cmd)
}

// arm gives a child the parent-death signal and a process group of its
// own, the two things every tethered child is started with.
func (c Config) arm(a *syscall.SysProcAttr) {
	a.Pdeathsig = c.Signal
	a.Setpgid = true
}

// The spawner is one goroutine, locked to its OS thread for the life of
// the process: the children it forks are tied to this thread, which
// therefore must never exit.
var (
	spawnerOnce sync.Once
	spawnerReqs chan startRequest
)

type startRequest struct {
	cmd  *exec.Cmd
	done chan error
}

func spawnerLoop() {
	runtime.LockOSThread()
	for req := range spawnerReqs {
		req.done <- req.cmd.Start()
	}
}

// onSpawner runs cmd.Start on the spawner thread.
func onSpawner(cmd *exec.Cmd) error {
	spawnerOnce.Do(func() {
		spawnerReqs = make(chan startRequest)
		go spawnerLoop()
	})
	req := startRequest{cmd: cmd, done: make(chan error, 1)}
	spawnerReqs <- req
	return <-req.done
}
