//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

var nobody = &syscall.Credential{Uid: 65534, Gid: 65534}

// sharedTemp is a temporary directory every user can enter, for TMPDIR
// of processes of several users.
func sharedTemp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tether-test-")
	if err == nil {
		err = os.Chmod(dir, 0o777)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// startRenamed starts, as cred, a process that wrote its title over its
// environment: no markers left to read.
func startRenamed(t *testing.T, cred *syscall.Credential) procid.ID {
	t.Helper()
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("no perl:", err)
	}
	cmd := exec.Command("perl", "-e", `$0 = "renamed " . ("x" x 200); sleep 300`)
	cmd.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	st, err := proc.Host().Stat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return procid.ID{PID: st.PID, StartTime: st.StartTime}
}

// plantRecord writes, as uid's, a record of a stranded run named name
// whose members are ms, into uid's directory under tmp.
func plantRecord(t *testing.T, tmp string, uid int, name string, ms ...procid.ID) string {
	t.Helper()
	dir := filepath.Join(tmp, fmt.Sprintf("tether-%d", uid))
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
	runID := strings.Repeat("e", 32)
	var members []string
	for _, m := range ms {
		members = append(members, fmt.Sprintf("%d:%d", m.PID, m.StartTime))
	}
	rec := map[string]any{
		"run_id": runID, "name": name, "supervisor": "999999:1", "command": []string{"x"},
		"stamp":   []string{"TETHER=1", "TETHER_NAME=" + name, "TETHER_SUPERVISOR=999999:1", "TETHER_RUN_ID=" + runID},
		"members": members,
	}
	data, _ := json.Marshal(rec)
	path := filepath.Join(dir, runID+".json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, path} {
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func tetherAs(t *testing.T, cred *syscall.Credential, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(tetherBin, args...)
	cmd.Env = append(append(proctest.CleanEnv(), proctest.Env(t)...), env...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	out, _ := cmd.CombinedOutput()
	return string(out), cmd.ProcessState.ExitCode()
}

// A renamed server is known by its run's record; a record is honoured
// only for its owner's processes: one of another user that names root's
// processes makes tether signal nothing of root's, as that user or as
// root with --any-user.
func TestRegistryOwnerOnly(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: processes and records of another user")
	}
	tmp := sharedTemp(t)
	env := []string{"TMPDIR=" + tmp, "XDG_RUNTIME_DIR="}
	roots := startRenamed(t, nil)
	users := startRenamed(t, nobody)
	plantRecord(t, tmp, 65534, "planted", roots, users)

	out, code := tetherAs(t, nobody, env, "check", fmt.Sprint(roots.PID))
	if code == 0 {
		t.Errorf("check of root's %d as nobody: exit 0 (%s), want it not tethered: a record names only its owner's processes", roots.PID, out)
	}
	out, code = tetherAs(t, nobody, env, "check", fmt.Sprint(users.PID))
	if code != 0 || !strings.Contains(out, "stranded") {
		t.Errorf("check of nobody's renamed %d as nobody: exit %d %q, want tethered, stranded (by its record)", users.PID, code, out)
	}
	out, _ = tetherAs(t, nobody, env, "reclaim", "--dry-run", "--name", "planted")
	if strings.Contains(out, fmt.Sprint(roots.PID)) || !strings.Contains(out, fmt.Sprint(users.PID)) {
		t.Errorf("reclaim --dry-run as nobody: %s; want nobody's %d named and root's %d not", out, users.PID, roots.PID)
	}
	out, code = tetherAs(t, nil, env, "reclaim", "--any-user", "--name", "planted", "--grace", "1s")
	if code != 0 {
		t.Errorf("reclaim --any-user as root: exit %d: %s", code, out)
	}
	if deadOrZombie(roots.PID) {
		t.Errorf("root's %d was ended by another user's record: %s", roots.PID, out)
	}
	proctest.Eventually(t, "nobody's renamed process ended by its record", func() bool { return deadOrZombie(users.PID) })
}

// A directory of the user's that someone else made (or a symlink) is
// refused: the run goes on without a record, and says so when traced
// (at its first tick, when the record is first written).
func TestRegistryForeignDirectoryRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: a directory of another owner")
	}
	tmp := sharedTemp(t)
	for _, tc := range []struct {
		name string
		make func(dir string) error
	}{
		{"root's", func(dir string) error { return os.Mkdir(dir, 0o700) }},
		{"symlink", func(dir string) error {
			target := filepath.Join(tmp, "elsewhere")
			if err := os.Mkdir(target, 0o700); err != nil {
				return err
			}
			if err := os.Chown(target, 65534, 65534); err != nil {
				return err
			}
			return os.Symlink(target, dir)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(tmp, "tether-65534")
			os.RemoveAll(dir)
			if err := tc.make(dir); err != nil {
				t.Fatal(err)
			}
			out, code := tetherAs(t, nobody, []string{"TMPDIR=" + tmp, "XDG_RUNTIME_DIR=", "TETHER_DEBUG=1"}, "run", "--", "sleep", "0.5")
			if code != 0 || !strings.Contains(out, "refused") {
				t.Errorf("run as nobody with %s directory: exit %d, want 0 and a trace of the refusal: %s", tc.name, code, out)
			}
			if entries, _ := os.ReadDir(filepath.Join(tmp, "elsewhere")); len(entries) > 0 {
				t.Errorf("a record written through the symlink: %v", entries)
			}
		})
	}
}

// The supervisor a process's markers name is signalled in its place
// (reclaim --all, run --replace) only when it is the tether run whose
// record names it: markers and start times are anyone's to copy, and
// --exec stamps the caller's shell.
func TestReclaimAllForgedSupervisor(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: a process of another user names root's as its supervisor")
	}
	victim := exec.Command("sleep", "300")
	victim.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = victim.Process.Kill(); _ = victim.Wait() })
	vst, err := proc.Host().Stat(victim.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	runID := strings.Repeat("f", 32)
	forger := exec.Command("sleep", "300")
	forger.Env = append(append(proctest.CleanEnv(), proctest.Env(t)...), "TETHER=1", "TETHER_NAME=forged", "TETHER_RUN_ID="+runID,
		fmt.Sprintf("TETHER_SUPERVISOR=%d:%d", vst.PID, vst.StartTime))
	forger.SysProcAttr = &syscall.SysProcAttr{Credential: nobody}
	if err := forger.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = forger.Process.Kill(); _ = forger.Wait() })
	proctest.Eventually(t, "the forger supervised by root's sleep", func() bool {
		out, code := tetherAs(t, nil, nil, "check", fmt.Sprint(forger.Process.Pid))
		return code == 0 && strings.Contains(out, "supervised")
	})
	out, code := tetherAs(t, nil, nil, "reclaim", "--all", "--any-user", "--run-id", runID, "--grace", "1s")
	if code != 0 {
		t.Errorf("reclaim --all --any-user --run-id: exit %d: %s", code, out)
	}
	if deadOrZombie(victim.Process.Pid) {
		t.Fatalf("root's sleep %d, named as supervisor by another user's markers, was signalled: %s", victim.Process.Pid, out)
	}
	proctest.Eventually(t, "the forger itself ended", func() bool { return deadOrZombie(forger.Process.Pid) })
}

// run --exec stamps its caller (a shell) as the supervisor: reclaim
// --all ends the command, never that shell.
func TestReclaimAllExecSparesTheShell(t *testing.T) {
	needFull(t, "--exec arms the parent-death signal")
	name := fmt.Sprintf("exec-shell-%d", os.Getpid())
	shell := exec.Command("/bin/sh", "-c", tetherBin+" run --exec --name "+name+" -- sleep 300; exec sleep 300")
	shell.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
	if err := shell.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shell.Process.Kill(); _ = shell.Wait() })
	var cmd int
	proctest.Eventually(t, "the --exec command running", func() bool {
		for _, c := range ptree.Children(proc.Host(), shell.Process.Pid) {
			if args, _ := proc.Host().Cmdline(c); len(args) == 2 && args[0] == "sleep" {
				if env, _ := proc.Host().Environ(c); strings.Contains(strings.Join(env, "\n"), "TETHER_NAME="+name) {
					cmd = c
					return true
				}
			}
		}
		return false
	})
	out, code := tetherAs(t, nil, nil, "reclaim", "--all", "--name", name, "--grace", "1s")
	if code != 0 {
		t.Errorf("reclaim --all --name %s: exit %d: %s", name, code, out)
	}
	proctest.Eventually(t, "the command ended", func() bool { return deadOrZombie(cmd) })
	if deadOrZombie(shell.Process.Pid) {
		t.Errorf("the shell %d that ran tether run --exec was signalled: %s", shell.Process.Pid, out)
	}
}
