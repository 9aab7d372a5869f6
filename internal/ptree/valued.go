package ptree

import (
	"github.com/tetherproc/tether/procid"
)

// Valued is a process a scan matched, with the value of the variable
// the scan was asked to read from its environment ("" where it has none).
type Valued struct {
	procid.ID
	Value string
}

// members are the members of vs, without their values.
func members(vs []Valued, executing []int) ([]procid.ID, []int) {
	if vs == nil {
		return nil, executing
	}
	out := make([]procid.ID, len(vs))
	for i, v := range vs {
		out[i] = v.ID
	}
	return out, executing
}
