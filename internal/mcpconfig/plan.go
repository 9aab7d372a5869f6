package mcpconfig

import (
	"bytes"
	"strings"
)

// Plan is a Document's new version and what it changes, entry by
// entry. Commit writes it.
type Plan struct {
	Document *Document
	Data     []byte
	Changes  []Change
}

// Changed reports whether the plan changes the file.
func (p Plan) Changed() bool { return !bytes.Equal(p.Data, p.Document.data) }

// diff is the lines that edits change, before and after, and the
// number of the first.
func diff(data []byte, edits []edit) (line int, before, after []string) {
	lo, hi := len(data), 0
	grow := 0
	for _, e := range edits {
		lo, hi = min(lo, e.at), max(hi, e.end)
		grow += len(e.text) - (e.end - e.at)
	}
	lo = bytes.LastIndexByte(data[:lo], '\n') + 1
	hi = lineEnd(data, hi)
	changed := apply(data, edits)
	line = bytes.Count(data[:lo], []byte("\n")) + 1
	return line, lines(data[lo:hi]), lines(changed[lo:lineEnd(changed, hi+grow)])
}

// lineEnd is where the line that holds offset i ends, its newline
// excluded; an offset at a line's start is the end of the line before.
func lineEnd(data []byte, i int) int {
	if i > 0 && data[i-1] == '\n' {
		return i - 1
	}
	if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(data)
}

func lines(b []byte) []string {
	out := strings.Split(string(b), "\n")
	for i, l := range out {
		out[i] = strings.TrimSuffix(l, "\r")
	}
	return out
}
