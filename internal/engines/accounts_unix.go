//go:build unix

package engines

import (
	"os"
	"os/user"
	"strconv"
	"strings"
)

// userOf is the name and primary group of uid, through os/user (the
// user database's files, in a static build).
func userOf(uid int) (name string, gid int, ok bool) {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return "", 0, false
	}
	gid, err = strconv.Atoi(u.Gid)
	return u.Username, gid, err == nil && gid >= 0
}

// groupID is the id of the group name, through os/user.
func groupID(name string) (int, bool) {
	g, err := user.LookupGroup(name)
	if err != nil {
		return 0, false
	}
	id, err := strconv.Atoi(g.Gid)
	return id, err == nil && id >= 0
}

// subgidFile is read for the subordinate group ids, which os/user does
// not give; a variable, so that a test can point it elsewhere.
var subgidFile = "/etc/subgid"

// subordinateGID reports whether gid is one of the subordinate group
// ids that /etc/subgid gives the user name (uid): the ids its user
// namespaces map their groups to, rootless engines' among them.
func subordinateGID(name string, uid, gid int) bool {
	data, err := os.ReadFile(subgidFile)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(strings.TrimSpace(line), ":")
		if len(f) != 3 || (f[0] != name && f[0] != strconv.Itoa(uid)) {
			continue
		}
		first, err1 := strconv.Atoi(f[1])
		count, err2 := strconv.Atoi(f[2])
		if err1 == nil && err2 == nil && first >= 0 && count > 0 && gid >= first && gid-first < count {
			return true
		}
	}
	return false
}
