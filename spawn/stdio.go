//go:build linux || darwin

package spawn

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// stdio is a supervised command's descriptors as os/exec gives them: a
// nil Stdin reads and a nil Stdout or Stderr writes the null device, an
// *os.File is passed as it is, any other reader or writer through a
// pipe that a goroutine copies, and ExtraFiles follow as 3, 4 and on.
// Supervise forks the command itself (it reaps it by wait4, which
// cmd.Wait would race), so the copying os/exec does in Start and Wait is
// done here, by the same rules: wait for every copy once the command is
// reaped, or for cmd.WaitDelay at most and then close the pipes.
type stdio struct {
	// files are the child's, by descriptor number.
	files []*os.File
	// parentEnds are the pipes' ends this process keeps, closed when
	// the copies are done or given up on.
	parentEnds []*os.File
	// childEnds are closed once the child has them.
	childEnds []*os.File
	copies    []func() error
	errs      chan error
	waitDelay time.Duration
}

// openStdio lays out cmd's descriptors. On error nothing stays open.
func openStdio(cmd *exec.Cmd) (*stdio, error) {
	s := &stdio{waitDelay: cmd.WaitDelay}
	ok := false
	defer func() {
		if !ok {
			s.closeAll()
		}
	}()
	in, err := s.input(cmd.Stdin)
	if err != nil {
		return nil, err
	}
	out, err := s.output(cmd.Stdout)
	if err != nil {
		return nil, err
	}
	var errf *os.File
	if cmd.Stderr != nil && interfaceEqual(cmd.Stderr, cmd.Stdout) {
		errf = out // one pipe, as os/exec shares it, so that order is kept
	} else if errf, err = s.output(cmd.Stderr); err != nil {
		return nil, err
	}
	// A nil among ExtraFiles is a descriptor the child does not have,
	// as in os/exec.
	s.files = append([]*os.File{in, out, errf}, cmd.ExtraFiles...)
	ok = true
	return s, nil
}

// interfaceEqual is os/exec's test for one writer given as both outputs:
// == on interfaces, which panics on an uncomparable dynamic type.
func interfaceEqual(a, b any) (eq bool) {
	defer func() { _ = recover() }()
	return a == b
}

func (s *stdio) input(r io.Reader) (*os.File, error) {
	if r == nil {
		return s.null(os.O_RDONLY)
	}
	if f, ok := r.(*os.File); ok {
		return f, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	s.childEnds = append(s.childEnds, pr)
	s.parentEnds = append(s.parentEnds, pw)
	s.copies = append(s.copies, func() error {
		_, err := io.Copy(pw, r)
		// The command may exit without reading it all, as os/exec
		// tolerates: a broken pipe is no failure of the copy.
		if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
			err = nil
		}
		if cerr := pw.Close(); err == nil && !errors.Is(cerr, os.ErrClosed) {
			err = cerr
		}
		return err
	})
	return pr, nil
}

// output is the child's descriptor for w.
func (s *stdio) output(w io.Writer) (*os.File, error) {
	if w == nil {
		return s.null(os.O_WRONLY)
	}
	if f, ok := w.(*os.File); ok {
		return f, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("output pipe: %w", err)
	}
	s.childEnds = append(s.childEnds, pw)
	s.parentEnds = append(s.parentEnds, pr)
	s.copies = append(s.copies, func() error {
		_, err := io.Copy(w, pr)
		pr.Close()
		if errors.Is(err, os.ErrClosed) || errors.Is(err, fs.ErrClosed) {
			err = nil // given up on after WaitDelay
		}
		return err
	})
	return pw, nil
}

func (s *stdio) null(flag int) (*os.File, error) {
	f, err := os.OpenFile(os.DevNull, flag, 0)
	if err != nil {
		return nil, err
	}
	s.childEnds = append(s.childEnds, f)
	return f, nil
}

// fds are the child's descriptors for a syscall.ProcAttr: from is 0
// for the standard three, 3 for the ExtraFiles. A nil is closed in the
// child, or with dense left out, the rest moving down.
func (s *stdio) fds(from, to int, dense bool) []uintptr {
	fds := make([]uintptr, 0, to-from)
	for _, f := range s.files[from:to] {
		switch {
		case f != nil:
			fds = append(fds, f.Fd())
		case !dense:
			fds = append(fds, ^uintptr(0))
		}
	}
	return fds
}

// started closes the child's ends, which the child has now, and starts
// the copies; with started false (nothing was started) it closes all.
func (s *stdio) started(ok bool) {
	if s == nil {
		return
	}
	if !ok {
		s.closeAll()
		return
	}
	for _, f := range s.childEnds {
		f.Close()
	}
	s.childEnds = nil
	s.errs = make(chan error, len(s.copies))
	for _, c := range s.copies {
		go func() { s.errs <- c() }()
	}
}

// wait waits for the copies, once the command is reaped (and with it,
// the tree ended, every writer of its pipes); it gives the first copy's
// error. With WaitDelay set it waits that long at most, as os/exec
// does: then it closes the pipes and returns exec.ErrWaitDelay, and a
// copy still blocked in its reader or writer ends when that returns.
func (s *stdio) wait() error {
	if s == nil || s.errs == nil {
		return nil
	}
	var timeout <-chan time.Time
	if s.waitDelay > 0 {
		t := time.NewTimer(s.waitDelay)
		defer t.Stop()
		timeout = t.C
	}
	var first error
	for n := len(s.copies); n > 0; n-- {
		select {
		case err := <-s.errs:
			if first == nil {
				first = err
			}
		case <-timeout:
			s.closeAll()
			return exec.ErrWaitDelay
		}
	}
	s.closeAll()
	return first
}

// closeAll closes what is still open of the pipes and the null device.
func (s *stdio) closeAll() {
	if s == nil {
		return
	}
	for _, f := range s.childEnds {
		f.Close()
	}
	for _, f := range s.parentEnds {
		f.Close()
	}
	s.childEnds, s.parentEnds = nil, nil
}
