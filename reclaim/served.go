package reclaim

// Served tells, for each of ports, whether it has a listener now: a
// listening TCP socket or a bound UDP one, IPv4 or IPv6, found as
// reclaim --port finds them. With owners given, only a listener that one
// of those processes holds counts, so that a program already on the port
// is not taken for the one being waited for. Without owners it is one
// read of the socket table and no walk of any process's descriptors: the
// cost of one poll of tether wait.
func Served(ports []uint16, owners []int) (map[uint16]bool, error) {
	want := map[uint16]bool{}
	for _, p := range ports {
		want[p] = true
	}
	ls, err := listeners(want)
	if err != nil {
		return nil, err
	}
	out := map[uint16]bool{}
	if owners == nil {
		for _, l := range ls {
			out[l.Port] = true
		}
		return out, nil
	}
	hs, err := holders(ls, owners)
	if err != nil {
		return nil, err
	}
	for _, h := range hs {
		out[h.listener.Port] = true
	}
	return out, nil
}
