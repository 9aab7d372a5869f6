package reclaim

// OtherHolder is a holder of a port asked about that a listing leaves
// out: another user's process (Excluded [OtherUser]; [Filter.AnyUser]
// lists it), or a socket whose holder is out of sight (Excluded
// [OutOfSight]: another user's process whose descriptors cannot be read,
// PID 0).
type OtherHolder struct {
	Port     uint16
	PID      int
	UID      int
	Excluded Reason
}
