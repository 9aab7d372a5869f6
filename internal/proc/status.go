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
}

// ParseStatus parses the contents of /proc/PID/status. A task whose Tgid
// differs from its PID is a thread, not a process.
func ParseStatus(data []byte) (Status, error) {
	st := Status{TGID: -1, UID: -1}
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		key, val, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue
		}
		switch string(key) {
		case "Tgid":
			v, err := strconv.Atoi(string(bytes.TrimSpace(val)))
			if err != nil || v < 0 {
				return st, fmt.Errorf("parse status: bad Tgid %q", bytes.TrimSpace(val))
			}
			st.TGID = v
		case "Uid":
			f := bytes.Fields(val)
			if len(f) == 0 {
				return st, fmt.Errorf("parse status: empty Uid line")
			}
			v, err := strconv.Atoi(string(f[0]))
			if err != nil || v < 0 {
				return st, fmt.Errorf("parse status: bad Uid %q", f[0])
			}
			st.UID = v
		}
		if st.TGID >= 0 && st.UID >= 0 {
			return st, nil
		}
	}
	if st.TGID < 0 {
		return st, fmt.Errorf("parse status: no Tgid line")
	}
	return st, fmt.Errorf("parse status: no Uid line")
}
