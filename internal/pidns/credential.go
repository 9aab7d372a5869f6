//go:build linux

package pidns

import (
	"strconv"
	"strings"
	"syscall"
)

// The caller's SysProcAttr.Credential is the command's, not the init's:
// the init keeps the supervisor's identity, which mounts the namespace's
// /proc, and takes on the credential only for the command it starts. It
// travels on the init's command line as "UID:GID:G1,G2", with ":n" after
// it for NoSetGroups, or "-" for none.

// credentialArg writes cred as the init reads it.
func credentialArg(cred *syscall.Credential) string {
	if cred == nil {
		return "-"
	}
	groups := make([]string, len(cred.Groups))
	for i, g := range cred.Groups {
		groups[i] = strconv.FormatUint(uint64(g), 10)
	}
	s := strconv.FormatUint(uint64(cred.Uid), 10) + ":" + strconv.FormatUint(uint64(cred.Gid), 10) + ":" + strings.Join(groups, ",")
	if cred.NoSetGroups {
		s += ":n"
	}
	return s
}

// parseCredential reads what credentialArg wrote: nil for "-", and
// false for anything else it did not write.
func parseCredential(arg string) (*syscall.Credential, bool) {
	if arg == "-" {
		return nil, true
	}
	f := strings.Split(arg, ":")
	if len(f) < 3 || len(f) > 4 || len(f) == 4 && f[3] != "n" {
		return nil, false
	}
	id := func(s string) (uint32, bool) {
		n, err := strconv.ParseUint(s, 10, 32)
		return uint32(n), err == nil
	}
	uid, ok1 := id(f[0])
	gid, ok2 := id(f[1])
	if !ok1 || !ok2 {
		return nil, false
	}
	cred := &syscall.Credential{Uid: uid, Gid: gid, NoSetGroups: len(f) == 4}
	if f[2] != "" {
		for _, g := range strings.Split(f[2], ",") {
			n, ok := id(g)
			if !ok {
				return nil, false
			}
			cred.Groups = append(cred.Groups, n)
		}
	}
	return cred, true
}
