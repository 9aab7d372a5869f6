//go:build linux && !tetherportable

package spawn

// tickState is empty on the full path: the tree is read from the
// kernel's children lists at each listing, and nothing is kept between
// two (see platform_portable.go for the portable path's).
type tickState struct{}

// scanFromNow has nothing to do: no listing scans every environment.
func (r *supervisor) scanFromNow() {}
