package readiness

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// StatusRange is the statuses Lo to Hi, both included.
type StatusRange struct{ Lo, Hi int }

// Statuses are the HTTP statuses an answer must have for its server to
// be ready: a list of ranges ("200-299,401").
type Statuses []StatusRange

// Success is the statuses taken as ready when none are given: 2xx, the
// answers that say the request succeeded. A 404 or a 401 says a server
// is up but not that what was asked for is; a 3xx is followed (or, with
// no redirects followed, is not ready).
var Success = Statuses{{200, 299}}

// ParseStatuses parses a list of statuses and ranges, comma-separated:
// "200", "200-299,401". Each is 100-599, each range LOW-HIGH with LOW
// <= HIGH.
func ParseStatuses(s string) (Statuses, error) {
	var out Statuses
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("invalid status list %q: an empty item", s)
		}
		lo, hi, isRange := strings.Cut(item, "-")
		l, err := parseStatus(lo)
		h := l
		if err == nil && isRange {
			h, err = parseStatus(hi)
		}
		switch {
		case err != nil:
			return nil, fmt.Errorf("invalid status %q: %w", item, err)
		case l > h:
			return nil, fmt.Errorf("invalid status range %q: reversed (want LOW-HIGH, LOW <= HIGH: %d-%d)", item, h, l)
		}
		out = append(out, StatusRange{l, h})
	}
	return out, nil
}

func parseStatus(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || len(s) != 3 {
		return 0, errors.New("not an HTTP status (three digits, 100-599)")
	}
	if n < 100 || n > 599 {
		return 0, fmt.Errorf("%d is not an HTTP status (100-599)", n)
	}
	return n, nil
}

// Has reports whether n is one of the statuses; nil Statuses are
// [Success].
func (ss Statuses) Has(n int) bool {
	if ss == nil {
		ss = Success
	}
	for _, r := range ss {
		if n >= r.Lo && n <= r.Hi {
			return true
		}
	}
	return false
}

// String is the list as it is written: "200-299,401".
func (ss Statuses) String() string {
	if ss == nil {
		ss = Success
	}
	var b strings.Builder
	for i, r := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(r.Lo))
		if r.Hi != r.Lo {
			b.WriteString("-" + strconv.Itoa(r.Hi))
		}
	}
	return b.String()
}
