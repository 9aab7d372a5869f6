//go:build !linux

package spawn

import (
	"context"
	"os/exec"
)

// NewHost fails: this platform has no parent-death signal to tie a
// child to the program.
func NewHost(HostOptions) (*Host, error) { return nil, ErrUnsupported }

// Start fails: there is no Host here.
func (h *Host) Start(*exec.Cmd, Config) (*Child, error) { return nil, ErrUnsupported }

// Children lists nothing.
func (h *Host) Children() []*Child { return nil }

// Close has nothing to close.
func (h *Host) Close(context.Context) error { return nil }

// Stop has nothing to stop.
func (c *Child) Stop(context.Context) error { return nil }
