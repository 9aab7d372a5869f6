//go:build linux || darwin

package registry

import "unicode/utf8"

// encode writes r as JSON by hand, in the field order and names of its
// tags: encoding/json's first use builds its encoders by reflection,
// which costs a run's start-up more than all the rest of the record.
// Reading (by check, ps and reclaim) uses encoding/json.
func (r Record) encode() []byte {
	b := make([]byte, 0, 256)
	b = append(b, `{"run_id":`...)
	b = appendString(b, r.RunID)
	if r.Name != "" {
		b = append(b, `,"name":`...)
		b = appendString(b, r.Name)
	}
	b = append(b, `,"supervisor":`...)
	b = appendString(b, r.Supervisor.String())
	if r.Watchdog.PID != 0 {
		b = append(b, `,"watchdog":`...)
		b = appendString(b, r.Watchdog.String())
	}
	if r.Forwards {
		b = append(b, `,"forwards":true`...)
	}
	if r.Cgroup != "" {
		b = append(b, `,"cgroup":`...)
		b = appendString(b, r.Cgroup)
	}
	b = append(b, `,"command":`...)
	b = appendStrings(b, r.Command)
	b = append(b, `,"stamp":`...)
	b = appendStrings(b, r.Stamp)
	members := make([]string, len(r.Members))
	for i, m := range r.Members {
		members[i] = m.String()
	}
	b = append(b, `,"members":`...)
	b = appendStrings(b, members)
	return append(b, "}\n"...)
}

func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendString appends s as a JSON string: invalid UTF-8 becomes
// U+FFFD byte by byte, as encoding/json writes it.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, c := range s {
		// Ranging over a string gives U+FFFD for each invalid byte.
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', byte(c))
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = utf8.AppendRune(b, c)
		}
	}
	return append(b, '"')
}
