// Package doctor finds out what this machine lets tether do for this
// user: each of the kernel features tether relies on, tried rather than
// assumed, so that a failure elsewhere can be explained by a line here.
package doctor

// Finding is one feature and whether it is there.
type Finding struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Mode is, on the --contain line, the containment auto picks.
	Mode string `json:"mode,omitempty"`
}
