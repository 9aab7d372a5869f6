package engines

import (
	"path/filepath"
	"strings"

	"github.com/tetherproc/tether/internal/proc"
)

// programOf finds the process manager that runs pid as one of its
// programs: its parent, by the parent's command line (parentArgv): pm2's
// daemon ("PM2 v5.3.0: God Daemon (/home/u/.pm2)") or supervisord. The
// program's name is the one the manager gave it in its environment (pm2:
// name; supervisord: SUPERVISOR_GROUP_NAME and SUPERVISOR_PROCESS_NAME),
// which is what its control command takes. nil for no manager.
//
// A process manager starts its program again when it exits, so that a
// signal frees a port for a moment only; what stops it for good is the
// manager's own command. A name is anyone's to take, so the worst a
// false one does is keep tether from signalling.
func programOf(fs proc.FS, pid, parent int, parentArgv []string) *Manager {
	engine := managerOf(parentArgv)
	if engine == "" {
		return nil
	}
	m := &Manager{Kind: ProcessManager, Engine: engine, Daemon: parent}
	if st, err := fs.Status(parent); err == nil {
		m.UID = st.UID
	}
	env, err := fs.Environ(pid)
	if err != nil {
		return m
	}
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	switch engine {
	case PM2:
		m.Name = vars["name"]
		if m.Name == "" {
			m.Name = vars["pm_id"]
		}
	case Supervisord:
		m.Name = vars["SUPERVISOR_PROCESS_NAME"]
		if g := vars["SUPERVISOR_GROUP_NAME"]; g != "" && g != m.Name && m.Name != "" {
			m.Name = g + ":" + m.Name
		}
	}
	if !isProgramName(m.Name) {
		m.Name = ""
	}
	return m
}

// managerOf names the process manager a command line is: PM2 or
// Supervisord, "" for none. pm2's daemon writes its title over its
// argv; supervisord is a Python program, run by its interpreter or by
// its own script.
func managerOf(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	if t := strings.Join(argv, " "); strings.HasPrefix(t, "PM2 v") && strings.Contains(t, "God Daemon") {
		return PM2
	}
	for i, a := range argv {
		if i > 1 {
			break
		}
		if filepath.Base(a) == "supervisord" {
			return Supervisord
		}
		if i == 0 && !strings.HasPrefix(filepath.Base(a), "python") {
			break
		}
	}
	return ""
}

// isProgramName reports whether s can be handed to a process manager's
// control command as a name: printable, no spaces, not too long.
func isProgramName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || r > '~' {
			return false
		}
	}
	return true
}
