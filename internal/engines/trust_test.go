//go:build unix

package engines

import (
	"errors"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// socketAt makes a unix socket at path with the given mode, as an engine
// makes its own, and closes the listener when the test ends.
func socketAt(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func shortTemp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "vouch-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestVouch(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give files away")
	}
	const nobody = 65534
	dir := shortTemp(t)
	sock := filepath.Join(dir, "ok.sock")
	socketAt(t, sock, 0o660)

	mk := func(name string, mode os.FileMode, uid, gid int) string {
		p := filepath.Join(dir, name)
		socketAt(t, p, mode)
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(name, target string, uid int) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(p, uid, 0); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sub := filepath.Join(dir, "real")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	socketAt(t, filepath.Join(sub, "in.sock"), 0o600)
	regular := filepath.Join(dir, "file")
	if err := os.WriteFile(regular, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	good := map[string]string{
		"root's, group root":    sock,
		"group may not write":   mk("nobodygroup-ro.sock", 0o640, 0, nobody),
		"a link of root's":      link("rootlink", "ok.sock", 0),
		"an absolute link":      link("abslink", sock, 0),
		"a directory link":      filepath.Join(link("dirlink", "real", 0), "in.sock"),
		"dot-dot after a link":  filepath.Join(dir, "dirlink", "..", "ok.sock"),
		"links to links":        link("link2", "rootlink", 0),
		"doubled slashes, dots": dir + "//./ok.sock",
	}
	if g, err := user.LookupGroup("docker"); err == nil {
		gid, _ := strconv.Atoi(g.Gid)
		good["group docker"] = mk("docker.sock", 0o660, 0, gid)
	}
	for name, p := range good {
		resolved, owner, err := vouch(p, -1)
		if err != nil || owner != 0 {
			t.Errorf("%s: vouch(%s) = %q, %d, %v; want it trusted", name, p, resolved, owner, err)
			continue
		}
		if fi, err := os.Lstat(resolved); err != nil || fi.Mode()&os.ModeSocket == 0 || strings.Contains(resolved, "link") {
			t.Errorf("%s: resolved to %q, not to the socket itself", name, resolved)
		}
	}

	bad := map[string]struct{ path, says string }{
		"another user's":           {mk("nobody.sock", 0o600, nobody, nobody), "owned by uid 65534, group 65534, mode srw-------: neither root nor this user"},
		"another group may write":  {mk("nobodygroup.sock", 0o660, 0, nobody), "mode srw-rw----: its group may write to it"},
		"every user may write":     {mk("world.sock", 0o666, 0, 0), "mode srw-rw-rw-: every user may write to it"},
		"a link of another user's": {link("nobodylink", "ok.sock", nobody), "symbolic link " + filepath.Join(dir, "nobodylink") + " is owned by uid 65534"},
		"a directory link of another user's": {filepath.Join(link("nobodydir", "real", nobody), "in.sock"),
			"symbolic link " + filepath.Join(dir, "nobodydir") + " is owned by uid 65534"},
		"not a socket": {regular, "is not a socket (mode -rw-------)"},
		"a loop":       {link("loop", "loop", 0), "more than 40 symbolic links"},
		"relative":     {"run/docker.sock", "not absolute"},
	}
	for name, tt := range bad {
		_, _, err := vouch(tt.path, -1)
		if !errors.Is(err, ErrUntrusted) && name != "a loop" || err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: vouch(%s) = %v; want it refused, saying %q", name, tt.path, err, tt.says)
		}
	}
	if _, _, err := vouch(filepath.Join(dir, "missing.sock"), -1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("vouch of a missing socket = %v, want ErrNotExist", err)
	}
}
