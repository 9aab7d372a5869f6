package proc

import (
	"bytes"
	"fmt"
	"strconv"
)

// Status is the part of /proc/PID/status that tether needs.
type Status struct {
	TGID int // the thread group (process) the task belongs to
	UID  int // the real user id
	// NSpid is the process's PID in each PID namespace it is a member of,
	// from the namespace of the table that was read down to its own: the
	// last entry is its PID where it runs. Empty on kernels before 4.1.
	NSpid []int
}

// ParseStatus parses the contents of /proc/PID/status. A task whose Tgid
// differs from its PID is a thread, not a process.
func ParseStatus(data []byte) (Status, error) {
	st := Status{TGID: -1, UID: -1}
	for len(data) > 0 && st.NSpid == nil {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		key, val, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue
		}
		var err error
		switch string(key) {
		case "Tgid":
			st.TGID, err = statusInt("Tgid", bytes.TrimSpace(val))
		case "Uid":
			f := bytes.Fields(val)
			if len(f) == 0 {
				return st, fmt.Errorf("parse status: empty Uid line")
			}
			st.UID, err = statusInt("Uid", f[0])
		case "NSpid":
			for _, f := range bytes.Fields(val) {
				var pid int
				if pid, err = statusInt("NSpid", f); err != nil {
					break
				}
				st.NSpid = append(st.NSpid, pid)
			}
		}
		if err != nil {
			return st, err
		}
	}
	switch {
	case st.TGID < 0:
		return st, fmt.Errorf("parse status: no Tgid line")
	case st.UID < 0:
		return st, fmt.Errorf("parse status: no Uid line")
	}
	return st, nil
}

func statusInt(key string, f []byte) (int, error) {
	v, err := strconv.Atoi(string(f))
	if err != nil || v < 0 {
		return 0, fmt.Errorf("parse status: bad %s %q", key, f)
	}
	return v, nil
}
