package mcpconfig

// span is a value's bytes in a file: [start, end).
type span struct{ start, end int }

// array is a list as it sits in a file: where its opening bracket is,
// and its elements.
type array struct {
	open  int
	elems []span
}

// found is an entry as read, with where its parts sit in the file when
// it is a stdio server's.
type found struct {
	entry   Entry
	command span
	// commandKey is where the command's member begins: its key in
	// JSON, its line in TOML. An entry without args gets them there.
	commandKey int
	args       *array // nil when the entry has none
	argsKey    int
	// argsAdjacent: the args member ends where the command's begins,
	// which is where Wrap puts the args of an entry that had none.
	argsAdjacent bool
	// keyLead is what comes before the command's key on its line (JSON:
	// the whitespace and comments after the previous member; TOML: the
	// line's indentation), repeated before the args Wrap adds.
	keyLead string
	eol     string // TOML: how the command's line ends
}

// syntax is a file format: how its servers are found, and how a string
// and a new args member are written in it.
type syntax interface {
	servers(data []byte) ([]found, error)
	quote(s string) string
	// newArgs is the member that gives args list (written, comma
	// separated) to an entry that has none, and where it goes.
	newArgs(f found, list string) (at int, text string)
	// layout says where the servers are read from: two syntaxes with
	// the same layout read the same entries from a file.
	layout() string
}

// syntaxOf is the syntax of a client's files.
func syntaxOf(c Client, path string) syntax {
	if c.toml() || (c == Unknown && Guess(path) == Codex) {
		return tomlSyntax{}
	}
	return jsonSyntax{client: c}
}

// bom is the UTF-8 byte-order mark some Windows editors begin a file
// with.
const bom = "\xef\xbb\xbf"

// servers are the entries syn finds in data. A leading byte-order mark
// is read as three spaces: the parsers refuse it, and spaces keep every
// other byte's offset, so edits land where they should and the mark is
// written back as it was.
func servers(syn syntax, data []byte) ([]found, error) {
	if len(data) >= len(bom) && string(data[:len(bom)]) == bom {
		data = append([]byte("   "), data[len(bom):]...)
	}
	return syn.servers(data)
}
