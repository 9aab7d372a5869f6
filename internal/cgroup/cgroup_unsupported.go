//go:build !linux

package cgroup

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/tetherproc/tether/procid"
)

// errUnsupported is why there is no group here.
var errUnsupported = errors.New("cgroups are Linux's")

// Group is a run's group; there is none here, and every method of a nil
// Group does nothing.
type Group struct{}

// New fails: cgroups are Linux's.
func New(string, []string) (*Group, error) { return nil, errUnsupported }

// Try fails: cgroups are Linux's.
func Try() (bool, error, error) { return false, nil, errUnsupported }

// Open is no group.
func Open(string) *Group { return nil }

func (g *Group) BornIn() error        { return errUnsupported }
func (g *Group) Path() string         { return "" }
func (g *Group) FD() int              { return -1 }
func (g *Group) Members() []procid.ID { return nil }
func (g *Group) KillAll()             {}
func (g *Group) Release()             {}

// EnterMain fails: cgroups are Linux's.
func EnterMain([]string) int {
	fmt.Fprintln(os.Stderr, "tether-enter:", errUnsupported)
	return 125
}

// Chosen: there are no cgroups here to choose.
func Chosen(*syscall.SysProcAttr) bool { return false }
