package cgroup

import (
	"sync"
	"syscall"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
)

// BornIn reports whether a child can be born in a group here: clone3
// with CLONE_INTO_CGROUP, which came with Linux 5.7, and which some
// container sandboxes refuse (Docker 20.10.0 to 20.10.9's default
// profile answered clone3 with EPERM, later ones ENOSYS). It is found
// once, at the first contained start, by starting nothing in g: a fork
// into it whose exec of "/" fails at once (the child is reaped by the
// same call), unless a start found it first (Refusal). A refusal is the
// error, naming the call.
func (g *Group) BornIn() error {
	bornOnce.Do(func() { bornErr = probeBornIn(g.FD()) })
	return bornErr
}

var (
	bornOnce sync.Once
	bornErr  error
)

func probeBornIn(fd int) error {
	attr := &syscall.ProcAttr{Sys: &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}}
	_, err := syscall.ForkExec("/", []string{"/"}, attr)
	return refusal(err) // nil also when the child was made and its exec of "/" failed
}

// Refusal is, for the error of a start with UseCgroupFD, the refusal
// of clone3 or CLONE_INTO_CGROUP it is (ENOSYS: no clone3, before Linux
// 5.3, or a filter's answer; EPERM: a filter's; EINVAL or E2BIG: a clone3
// without CLONE_INTO_CGROUP, 5.3 to 5.6), recorded for BornIn, and nil
// for any other error: a start that tried, instead of asking first.
func Refusal(err error) error {
	if why := refusal(err); why != nil {
		bornOnce.Do(func() { bornErr = why })
		return why
	}
	return nil
}

func refusal(err error) error {
	switch err {
	case syscall.ENOSYS, syscall.EPERM, syscall.EINVAL, syscall.E2BIG:
		// clone3 failed: no child was made.
		why := proc.Refused("clone3 with CLONE_INTO_CGROUP", err)
		trace.Printf("children are not born in their cgroups here (%v): each enters its own before it runs", why)
		return why
	}
	return nil
}

// Chosen reports whether a has the child born in a cgroup of the
// caller's choosing, which a run's own group would override.
func Chosen(a *syscall.SysProcAttr) bool { return a.UseCgroupFD }
