//go:build linux

package pidns

import (
	"reflect"
	"syscall"
	"testing"
)

// A credential goes to the init and comes back as it was; what was not
// written by credentialArg is refused.
func TestCredentialArg(t *testing.T) {
	for _, cred := range []*syscall.Credential{
		nil,
		{Uid: 65534, Gid: 65534},
		{Uid: 0, Gid: 0, Groups: []uint32{4, 24, 27}},
		{Uid: 1000, Gid: 100, NoSetGroups: true},
	} {
		got, ok := parseCredential(credentialArg(cred))
		if !ok || !reflect.DeepEqual(got, cred) {
			t.Errorf("%+v: read back %+v, %v", cred, got, ok)
		}
	}
	for _, bad := range []string{"", "1000", "1000:x:", "1:2:3:y", "1:2:a,b", "-1:2:"} {
		if _, ok := parseCredential(bad); ok {
			t.Errorf("parseCredential(%q) accepted", bad)
		}
	}
}
