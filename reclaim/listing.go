package reclaim

// Listing is what a listing found: the processes it lists and, with
// [Filter.Ports], the holders of those ports it leaves out, so that a
// port held by someone is never shown as held by no one.
type Listing struct {
	Processes []Process
	Others    []OtherHolder
}
