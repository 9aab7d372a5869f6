//go:build !linux && !darwin

package spawn

import (
	"context"
	"os/exec"
)

// Host is a Go program's supervisor of the children it starts over its
// life; on Linux only (see the Linux documentation).
type Host struct{}

// Child is one child a [Host] started.
type Child struct {
	// Cmd is the child's command.
	Cmd *exec.Cmd
}

// Options are the child's options.
func (c *Child) Options() ChildOptions { return ChildOptions{} }

// RunID is the child's run id.
func (c *Child) RunID() string { return "" }

// Name is the name the child is stamped with.
func (c *Child) Name() string { return "" }

// NewHost fails: this platform has no parent-death signal to tie a
// child to the program.
func NewHost() (*Host, error) { return nil, errUnsupported }

// Start fails: there is no Host here.
func (h *Host) Start(*exec.Cmd, ChildOptions) (*Child, error) { return nil, errUnsupported }

// Guarantees: there is no Host here.
func (h *Host) Guarantees() Guarantees { return Guarantees{} }

// Children lists nothing.
func (h *Host) Children() []*Child { return nil }

// Close has nothing to close.
func (h *Host) Close(context.Context) error { return nil }

// Stop has nothing to stop.
func (c *Child) Stop(context.Context) error { return nil }
