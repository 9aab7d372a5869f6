//go:build !linux

package proc

import "errors"

// ErrNoNamespaces means the platform has no PID namespaces: every process
// is in the one namespace there is.
var ErrNoNamespaces = errors.New("no PID namespaces on this platform")

// PIDNamespace: this platform has none.
func (fs FS) PIDNamespace(pid int) (uint64, error) { return 0, ErrNoNamespaces }

// SelfPIDNamespace: this platform has none.
func (fs FS) SelfPIDNamespace() (uint64, error) { return 0, ErrNoNamespaces }

// TableNamespace: this platform has none.
func (fs FS) TableNamespace() (uint64, error) { return 0, ErrNoNamespaces }

// FindInNamespace finds nothing: this platform has no namespaces.
func (fs FS) FindInNamespace(ns uint64, nspid int, startTime uint64, near int) (pid int, visible, complete bool) {
	return 0, false, false
}

// CheckOwn has nothing to check: one namespace for all.
func (fs FS) CheckOwn() error { return nil }
