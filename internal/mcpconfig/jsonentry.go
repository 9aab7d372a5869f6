package mcpconfig

import (
	"strings"

	"github.com/tailscale/hujson"
)

// jsonEntry reads a server's object into f: a remote server's address,
// or a stdio server's command and args and where they sit.
func jsonEntry(f *found, e *hujson.Object) {
	for _, k := range []string{"url", "serverUrl", "httpUrl"} {
		if m, ok := jsonMember(e, k); ok {
			f.entry.URL = jsonString(m.Value)
		}
	}
	if m, ok := jsonMember(e, "type"); ok {
		f.entry.Transport = jsonString(m.Value)
	}
	if f.entry.URL != "" || (f.entry.Transport != "" && f.entry.Transport != "stdio") {
		f.entry.Kind = Remote
		return
	}
	ci := jsonIndex(e, "command")
	if ci < 0 || !isJSONString(e.Members[ci].Value) {
		return
	}
	cm := e.Members[ci]
	f.entry.Command = jsonString(cm.Value)
	f.command = span{cm.Value.StartOffset, cm.Value.EndOffset}
	f.commandKey = cm.Name.StartOffset
	f.keyLead = string(cm.Name.BeforeExtra)
	if ai := jsonIndex(e, "args"); ai >= 0 {
		am := e.Members[ai]
		list, ok := am.Value.Value.(*hujson.Array)
		if !ok {
			return
		}
		a := &array{open: am.Value.StartOffset}
		for _, el := range list.Elements {
			if !isJSONString(el) {
				return
			}
			f.entry.Args = append(f.entry.Args, jsonString(el))
			a.elems = append(a.elems, span{el.StartOffset, el.EndOffset})
		}
		f.args, f.argsKey, f.argsAdjacent = a, am.Name.StartOffset, ai == ci-1
	}
	f.entry.Kind = Stdio
}

func isJSONString(v hujson.Value) bool {
	l, ok := v.Value.(hujson.Literal)
	return ok && l.Kind() == '"'
}

func (jsonSyntax) quote(s string) string { return string(hujson.String(s)) }

// newArgs puts the args before the command, on a line of their own when
// the command's key is on one: `"args": [...],` and the command key's
// own lead again.
func (jsonSyntax) newArgs(f found, list string) (int, string) {
	return f.commandKey, `"args": [` + list + "]," + leadOf(f.keyLead)
}

// leadOf is the whitespace that starts a member's line: lead itself when
// it is only whitespace, its last line's indentation when it holds a
// comment (which is not to be repeated), a space when there is none.
func leadOf(lead string) string {
	if strings.TrimSpace(lead) == "" && lead != "" {
		return lead
	}
	if i := strings.LastIndexByte(lead, '\n'); i >= 0 && strings.TrimSpace(lead[i:]) == "" {
		return lead[i:]
	}
	return " "
}
