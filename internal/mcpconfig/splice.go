package mcpconfig

import (
	"bytes"
	"sort"
	"strings"
)

// edit replaces data[at:end] with text.
type edit struct {
	at, end int
	text    string
}

// apply makes the edits, which do not overlap, on a copy of data.
func apply(data []byte, edits []edit) []byte {
	sorted := append([]edit(nil), edits...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].at > sorted[j].at })
	out := append([]byte(nil), data...)
	for _, e := range sorted {
		out = append(out[:e.at], append([]byte(e.text), out[e.end:]...)...)
	}
	return out
}

// wrapEdits make f's command the wrapping's and put the prefix and the
// entry's own command before its args. The command goes into the args
// as its bytes stood (its quoting, its escapes), so that unwrapEdits
// gives those same bytes back.
func wrapEdits(data []byte, syn syntax, f found, command string, prefix []string) []edit {
	toks := make([]string, 0, len(prefix)+1)
	for _, p := range prefix {
		toks = append(toks, syn.quote(p))
	}
	toks = append(toks, string(data[f.command.start:f.command.end]))
	edits := []edit{{f.command.start, f.command.end, syn.quote(command)}}
	if f.args == nil {
		// "[ " and " ]": the mark of args Wrap added, which an existing
		// list, even an empty one just before the command, never gets.
		at, text := syn.newArgs(f, " "+strings.Join(toks, ", ")+" ")
		return append(edits, edit{at, at, text})
	}
	a := *f.args
	if len(a.elems) == 0 {
		return append(edits, edit{a.open + 1, a.open + 1, strings.Join(toks, ", ")})
	}
	// The new elements take the first one's lead: on lines of their own
	// in a list of one per line, after "[ " in one that has a space.
	lead := string(data[a.open+1 : a.elems[0].start])
	if strings.TrimSpace(lead) != "" {
		lead = ""
	}
	sep := ", "
	if strings.Contains(lead, "\n") {
		sep = "," + lead
	}
	text := lead + strings.Join(toks, sep) + ","
	if lead == "" {
		text += " "
	}
	return append(edits, edit{a.open + 1, a.open + 1, text})
}

// unwrapEdits undo wrapEdits, given that the first n elements of f's
// args are the prefix and the command: the command's bytes go back, and
// the elements and separators wrapEdits wrote go.
func unwrapEdits(data []byte, f found, n int) []edit {
	a := *f.args
	cmd := a.elems[n-1]
	edits := []edit{{f.command.start, f.command.end, string(data[cmd.start:cmd.end])}}
	if added(data, f, n) {
		return append(edits, edit{f.argsKey, f.commandKey, ""})
	}
	if len(a.elems) == n {
		end := cmd.end
		// A trailing comma (a list reformatted one per line) goes too.
		if i := bytes.IndexFunc(data[end:], func(r rune) bool { return !strings.ContainsRune(" \t\r\n", r) }); i >= 0 && data[end+i] == ',' {
			end += i + 1
		}
		return append(edits, edit{a.open + 1, end, ""})
	}
	lead := string(data[a.open+1 : a.elems[0].start])
	gap := ","
	if lead == "" {
		gap = ", "
	}
	if bytes.HasPrefix(data[cmd.end:], []byte(gap)) {
		return append(edits, edit{a.open + 1, cmd.end + len(gap), ""})
	}
	// Reformatted since (by the client, by hand): the first original
	// element takes the lead the list began with.
	return append(edits, edit{a.open + 1, a.elems[n].start, lead})
}

// added reports whether f's args are all Wrap's, added to an entry that
// had none: the member just before the command, its list "[ " and the
// n elements and " ]".
func added(data []byte, f found, n int) bool {
	a := f.args
	if a == nil || len(a.elems) != n || !f.argsAdjacent {
		return false
	}
	last := a.elems[n-1].end
	return string(data[a.open+1:a.elems[0].start]) == " " && bytes.HasPrefix(data[last:], []byte(" ]"))
}
