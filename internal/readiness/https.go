package readiness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tetherproc/tether/internal/hosts"
)

// HTTPSProgram is the name of the program that sends an https URL's
// GET. TLS is kept out of tether's own binary: crypto/tls and package
// net would slow every tether run's start-up by 3 to 4 ms (a third over
// the floor of run --exec), for the few waits that need it.
const HTTPSProgram = "tether-https"

// ErrNoHTTPSProgram is an https URL to wait for where the program
// [HTTPSProgram] is neither beside the running binary nor on PATH.
var ErrNoHTTPSProgram = errors.New("https needs the program " + HTTPSProgram + ", beside tether or on PATH, and there is none")

// FindHTTPSProgram returns the path of [HTTPSProgram]: the one beside
// the running binary first (installed together, they speak one
// protocol), else the first on PATH.
func FindHTTPSProgram() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), HTTPSProgram)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(HTTPSProgram); err == nil {
		return p, nil
	}
	return "", ErrNoHTTPSProgram
}

// getTLS sends GET to an https URL through the helper program and reads
// back its status and Location, or why there was none. The port is
// first connected to here: while it refuses, as it does for most of a
// wait, no program is started (a wait of a minute would start hundreds).
func (s Spec) getTLS(u URL) attempt {
	a := attempt{url: u.String()}
	limit := s.tryLimit()
	addrs, err := hosts.Resolve(u.Host, limit)
	if err != nil {
		a.err = err.Error()
		return a
	}
	deadline := time.Now().Add(limit)
	for _, ad := range addrs {
		if err = accepts(endpoint{tcp: netip.AddrPortFrom(ad, u.Port)}, deadline); err == nil {
			break
		}
	}
	if err != nil {
		a.err = connError(err, limit)
		return a
	}
	args := []string{"-timeout", limit.String()}
	if s.Insecure {
		args = append(args, "-insecure")
	}
	// The helper keeps to its own timeout; this one only stops a helper
	// that does not (one of another version, or stuck starting).
	ctx, cancel := context.WithTimeout(context.Background(), limit+5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.HTTPSProgram, append(args, u.String())...)
	// No traceback of the helper's runtime (a thread it cannot create
	// under ulimit -u) reaches the user: its first line says why.
	cmd.Env = []string{"GOTRACEBACK=none"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	a.status, a.location, a.err = parseHTTPSAnswer(string(out))
	if a.err == "" && a.status == 0 {
		first, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		a.err = fmt.Sprintf("%s gave no answer (%v): %s", s.HTTPSProgram, err, cut(first, 200))
	}
	return a
}

// parseHTTPSAnswer reads the helper's tagged lines: a status, a
// Location, or an error. Lines of any other shape are not its answer.
func parseHTTPSAnswer(out string) (status int, location, reason string) {
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(line, HTTPSProgram+" ")
		if !ok {
			continue
		}
		key, value, _ := strings.Cut(rest, " ")
		switch key {
		case "status":
			n, err := strconv.Atoi(value)
			if err != nil || n < 100 || n > 999 {
				return 0, "", fmt.Sprintf("%s answered a status of %q", HTTPSProgram, cut(value, 20))
			}
			status = n
		case "location":
			location = value
		case "error":
			return 0, "", value
		}
	}
	return status, location, ""
}
