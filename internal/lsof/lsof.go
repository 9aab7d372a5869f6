package lsof

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// appleLsof is where macOS installs lsof.
const appleLsof = "/usr/sbin/lsof"

// Limit bounds one run of lsof.
const Limit = 10 * time.Second

// Path is the lsof to run: Apple's, else the first in PATH.
func Path() (string, error) {
	if st, err := os.Stat(appleLsof); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
		return appleLsof, nil
	}
	p, err := exec.LookPath("lsof")
	if err != nil {
		return "", fmt.Errorf("lsof: not in %s or PATH: %w", appleLsof, err)
	}
	return p, nil
}

// Output runs lsof with args after -b -w, within Limit, and returns its
// standard output. An exit status of 1 is no error: lsof exits 1 when
// it finds nothing.
func Output(args ...string) ([]byte, error) {
	path, err := Path()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), Limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append([]string{"-b", "-w"}, args...)...)
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: no answer within %v", path, Limit)
	}
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
