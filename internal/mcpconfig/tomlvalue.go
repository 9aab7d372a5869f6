package mcpconfig

import (
	"bytes"
	"fmt"
)

// value goes past the value at pos; an array's elements are returned.
func (s *tomlScan) value() (*array, error) {
	switch {
	case bytes.HasPrefix(s.data[s.pos:], []byte(`"""`)):
		return nil, s.through(`"""`, 3, true)
	case bytes.HasPrefix(s.data[s.pos:], []byte(`'''`)):
		return nil, s.through(`'''`, 3, false)
	case s.peek() == '"':
		return nil, s.through(`"`, 1, true)
	case s.peek() == '\'':
		return nil, s.through(`'`, 1, false)
	case s.peek() == '[':
		return s.array()
	case s.peek() == '{':
		return nil, s.inline()
	}
	start := s.pos
	for s.pos < len(s.data) && bytes.IndexByte([]byte(" \t\r\n#,]}"), s.data[s.pos]) < 0 {
		s.pos++
	}
	if s.pos == start {
		return nil, fmt.Errorf("no value")
	}
	return nil, nil
}

// through goes past a string that opens with n bytes and ends with
// closer; escapes says a backslash escapes the next byte.
func (s *tomlScan) through(closer string, n int, escapes bool) error {
	s.pos += n
	for s.pos < len(s.data) {
		switch {
		case escapes && s.data[s.pos] == '\\':
			s.pos += 2
		case bytes.HasPrefix(s.data[s.pos:], []byte(closer)):
			s.pos += len(closer)
			// A multi-line string may end with up to two more quotes.
			for n == 3 && s.pos < len(s.data) && s.data[s.pos] == closer[0] {
				s.pos++
			}
			return nil
		default:
			s.pos++
		}
	}
	return fmt.Errorf("a string does not end")
}

// blank goes past whitespace, newlines and comments inside an array.
func (s *tomlScan) blank() {
	for {
		s.skip(" \t\r\n")
		if s.peek() != '#' {
			return
		}
		for s.pos < len(s.data) && s.data[s.pos] != '\n' {
			s.pos++
		}
	}
}

func (s *tomlScan) array() (*array, error) {
	a := &array{open: s.pos}
	s.pos++
	for {
		s.blank()
		if s.peek() == ']' {
			s.pos++
			return a, nil
		}
		start := s.pos
		if _, err := s.value(); err != nil {
			return nil, err
		}
		a.elems = append(a.elems, span{start, s.pos})
		s.blank()
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return a, nil
		default:
			return nil, fmt.Errorf("unexpected %q in an array", s.peek())
		}
	}
}

// inline goes past an inline table, nested ones and strings included.
func (s *tomlScan) inline() error {
	s.pos++
	for s.pos < len(s.data) {
		switch s.peek() {
		case '}':
			s.pos++
			return nil
		case '"', '\'', '[', '{':
			if _, err := s.value(); err != nil {
				return err
			}
		default:
			s.pos++
		}
	}
	return fmt.Errorf("an inline table does not end")
}
