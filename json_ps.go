package main

// psRow is a process of tether ps --json: its fields as a reclaim's
// results show them, and its age.
type psRow struct {
	processJSON
	AgeSeconds int64 `json:"age_seconds"`
}

// psOtherRow is a row of tether ps --json --port for a holder the
// listing leaves out: its port, PID (0 when out of sight), uid, the
// kind of reason (left_out, beside the rows of the processes listed,
// whose reason field is their verdict's) and the words.
type psOtherRow struct {
	Port    uint16 `json:"port"`
	PID     int    `json:"pid,omitempty"`
	UID     int    `json:"uid"`
	LeftOut string `json:"left_out"`
	Why     string `json:"why"`
}

// psJSON is what tether ps --json prints: the processes listed, then
// the holders of the ports asked about that the listing leaves out.
func psJSON(entries []psEntry, others []psOther) []any {
	rows := make([]any, 0, len(entries)+len(others))
	for _, e := range entries {
		rows = append(rows, psRow{processJSON: processOf(e.Process), AgeSeconds: e.AgeSeconds})
	}
	for _, o := range others {
		rows = append(rows, psOtherRow{Port: o.Port, PID: o.PID, UID: o.UID, LeftOut: string(o.Excluded), Why: o.Why})
	}
	return rows
}
