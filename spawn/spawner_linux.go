package spawn

import (
	"os/exec"
	"runtime"
	"sync"
)

type startRequest struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	spawnerOnce sync.Once
	spawnerReqs chan startRequest
)

// spawnerLoop runs on one locked OS thread for the life of the process:
// the children it forks are tied to this thread, which therefore must
// never exit.
func spawnerLoop() {
	runtime.LockOSThread()
	for req := range spawnerReqs {
		req.done <- req.cmd.Start()
	}
}

func onSpawner(req startRequest) error {
	spawnerOnce.Do(func() {
		spawnerReqs = make(chan startRequest)
		go spawnerLoop()
	})
	req.done = make(chan error, 1)
	spawnerReqs <- req
	return <-req.done
}
