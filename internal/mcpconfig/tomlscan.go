package mcpconfig

import (
	"fmt"
	"strconv"
	"strings"
)

// tomlScan walks a TOML file that has already parsed and notes where
// each key's value sits, by table: what the decoder does not say. It
// knows the lexical forms (strings of the four kinds, arrays, inline
// tables, comments), not the semantics, which the decoder has checked.
type tomlScan struct {
	data  []byte
	pos   int
	table string // the current table's path, its keys joined by "\x00"
	keys  map[string]tomlKey
}

// tomlKey is one key = value line.
type tomlKey struct {
	// table is the path of the header the key sits under: a key met
	// through a dotted key ([mcp_servers] then a.command) has a path
	// longer than its table's.
	table string
	line  int // where the line begins
	value span
	arr   *array // the value's elements, when it is an array
	end   int    // where the next line begins
	// indent is the line's leading whitespace; eol its end, "\n" or
	// "\r\n": a line written before it is written as it is.
	indent, eol string
}

func scanTOML(data []byte) (map[string]tomlKey, error) {
	s := &tomlScan{data: data, keys: map[string]tomlKey{}}
	for s.pos < len(s.data) {
		line := s.pos
		s.skip(" \t")
		var err error
		switch c := s.peek(); c {
		case '\r', '\n':
			s.pos++
		case '#':
			s.toEOL()
		case '[':
			err = s.header()
		default:
			err = s.keyValue(line)
		}
		if err != nil {
			return nil, fmt.Errorf("offset %d: %w", s.pos, err)
		}
	}
	return s.keys, nil
}

func (s *tomlScan) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

func (s *tomlScan) skip(set string) {
	for s.pos < len(s.data) && strings.IndexByte(set, s.data[s.pos]) >= 0 {
		s.pos++
	}
}

// toEOL goes past the end of the line, comment included.
func (s *tomlScan) toEOL() {
	for s.pos < len(s.data) && s.data[s.pos] != '\n' {
		s.pos++
	}
	if s.pos < len(s.data) {
		s.pos++
	}
}

// header reads [a.b] or [[a.b]]; an array of tables' keys are noted
// under a path no server table has.
func (s *tomlScan) header() error {
	s.pos++
	many := s.peek() == '['
	if many {
		s.pos++
	}
	path, err := s.keyPath(']')
	if err != nil {
		return err
	}
	s.table = path
	if many {
		s.table = "[[" + path
	}
	s.toEOL()
	return nil
}

func (s *tomlScan) keyValue(line int) error {
	indent := string(s.data[line:s.pos])
	path, err := s.keyPath('=')
	if err != nil {
		return err
	}
	s.pos++ // '='
	s.skip(" \t")
	k := tomlKey{table: s.table, line: line, value: span{start: s.pos}, indent: indent, eol: "\n"}
	if k.arr, err = s.value(); err != nil {
		return err
	}
	k.value.end = s.pos
	s.toEOL()
	k.end = s.pos
	if k.end >= 2 && s.data[k.end-2] == '\r' {
		k.eol = "\r\n"
	}
	s.keys[s.table+"\x00"+path] = k
	return nil
}

// keyPath reads a dotted key up to stop, each part bare or quoted, and
// returns the parts joined by "\x00".
func (s *tomlScan) keyPath(stop byte) (string, error) {
	var parts []string
	for {
		s.skip(" \t")
		part, err := s.key()
		if err != nil {
			return "", err
		}
		parts = append(parts, part)
		s.skip(" \t")
		switch s.peek() {
		case '.':
			s.pos++
		case stop:
			return strings.Join(parts, "\x00"), nil
		default:
			return "", fmt.Errorf("unexpected %q in a key", s.peek())
		}
	}
}

func (s *tomlScan) key() (string, error) {
	start := s.pos
	switch s.peek() {
	case '"', '\'':
		if _, err := s.value(); err != nil {
			return "", err
		}
		return tomlUnquote(string(s.data[start:s.pos]))
	}
	for s.pos < len(s.data) && tomlBare(s.data[s.pos]) {
		s.pos++
	}
	if s.pos == start {
		return "", fmt.Errorf("unexpected %q where a key was expected", s.peek())
	}
	return string(s.data[start:s.pos]), nil
}

func tomlBare(c byte) bool {
	return c == '_' || c == '-' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
}

// tomlUnquote is a quoted key's or string's value. A basic string's
// escapes are Go's but for \e and \xHH, which TOML 1.1 adds.
func tomlUnquote(q string) (string, error) {
	switch {
	case strings.HasPrefix(q, "'''"):
		return strings.TrimPrefix(q[3:len(q)-3], "\n"), nil
	case strings.HasPrefix(q, "'"):
		return q[1 : len(q)-1], nil
	case strings.HasPrefix(q, `"""`):
		return "", fmt.Errorf("a multi-line string where a plain one was expected")
	}
	return strconv.Unquote(strings.ReplaceAll(q, `\e`, `\x1b`))
}
