package users

import (
	"os"
	"strconv"
	"strings"
)

// The files read; variables so that a test can point them elsewhere.
var (
	passwdFile = "/etc/passwd"
	groupFile  = "/etc/group"
	subgidFile = "/etc/subgid"
)

// Lookup is the name and primary group of uid.
func Lookup(uid int) (name string, gid int, ok bool) {
	return lookup(passwdFile, uid)
}

func lookup(path string, uid int) (string, int, bool) {
	for _, f := range records(path, 4) {
		if f[2] == strconv.Itoa(uid) {
			if gid, err := strconv.Atoi(f[3]); err == nil && gid >= 0 {
				return f[0], gid, true
			}
		}
	}
	return "", 0, false
}

// GroupID is the id of the group name.
func GroupID(name string) (int, bool) {
	return groupID(groupFile, name)
}

func groupID(path, name string) (int, bool) {
	for _, f := range records(path, 3) {
		if f[0] == name {
			if id, err := strconv.Atoi(f[2]); err == nil && id >= 0 {
				return id, true
			}
		}
	}
	return 0, false
}

// SubordinateGID reports whether gid is one of the subordinate group ids
// that /etc/subgid gives the user name (uid): the ids its user
// namespaces map their groups to, rootless engines' among them.
func SubordinateGID(name string, uid, gid int) bool {
	return subordinate(subgidFile, name, uid, gid)
}

func subordinate(path, name string, uid, id int) bool {
	for _, f := range records(path, 3) {
		if len(f) != 3 || (f[0] != name && f[0] != strconv.Itoa(uid)) {
			continue
		}
		first, err1 := strconv.Atoi(f[1])
		count, err2 := strconv.Atoi(f[2])
		if err1 == nil && err2 == nil && first >= 0 && count > 0 && id >= first && id-first < count {
			return true
		}
	}
	return false
}

// records are the colon-separated lines of the file at path with at
// least n fields.
func records(path string, n int) [][]string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out [][]string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Split(strings.TrimSpace(line), ":"); len(f) >= n {
			out = append(out, f)
		}
	}
	return out
}
