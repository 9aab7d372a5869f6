package readiness

import (
	"fmt"
	"strconv"
	"strings"
)

// statusOf parses the status of an HTTP/1.x status line: "HTTP/1.1 200
// OK". The reason phrase is anything, or nothing.
func statusOf(line string) (int, error) {
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || len(code) != 3 || err != nil || n < 100 {
		return 0, fmt.Errorf("not an HTTP/1 answer: %q", cut(line, 40))
	}
	return n, nil
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
