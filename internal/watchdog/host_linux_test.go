package watchdog

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The host protocol, read by the Go second stage alone: a line counts
// only whole, about a run that was begun, and one that cannot be read
// leaves what came before in place.
func TestReadHostLines(t *testing.T) {
	const a, b = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	cases := []struct {
		name, input string
		done        bool
		want        map[string]hostRun
	}{
		{name: "done", input: "r " + a + " 0\ng " + a + " 12\nd\n", done: true, want: map[string]hostRun{a: {group: 12}}},
		{name: "two runs", input: "r " + a + " 5\nr " + b + " 7\ng " + a + " 12\nc " + b + " /sys/fs/cgroup/x\n",
			want: map[string]hostRun{a: {grace: 5, group: 12}, b: {grace: 7, cgroup: "/sys/fs/cgroup/x"}}},
		{name: "over", input: "r " + a + " 0\nr " + b + " 0\nx " + a + "\n", want: map[string]hostRun{b: {}}},
		{name: "group gone", input: "r " + a + " 0\ng " + a + " 12\ng- " + a + "\n", want: map[string]hostRun{a: {}}},
		{name: "not begun", input: "g " + a + " 12\nc " + a + " /x\nx " + a + "\n", want: map[string]hostRun{}},
		{name: "begun once", input: "r " + a + " 5\ng " + a + " 12\nr " + a + " 9\n", want: map[string]hostRun{a: {grace: 5, group: 12}}},
		{name: "bad run ids", input: "r " + strings.ToUpper(a) + " 0\nr " + a[:31] + " 0\nr " + a + "0 0\n", want: map[string]hostRun{}},
		{name: "bad grace", input: "r " + a + " -1\nr " + a + " x\nr " + a + "\n", want: map[string]hostRun{}},
		{name: "bad groups kept out", input: "r " + a + " 0\ng " + a + " 12\ng " + a + " 4294967296\ng " + a + " -3\ng " + a + " \ng " + a + "\n",
			want: map[string]hostRun{a: {group: 12}}},
		{name: "spaces are not words", input: "r " + a + " 0\ng " + a + " 12\ng- " + a + " \nx " + a + " \n d\n", want: map[string]hostRun{a: {group: 12}}},
		{name: "a line cut short", input: "r " + a + " 0\ng " + a + " 12\nx " + a, want: map[string]hostRun{a: {group: 12}}},
		{name: "over-long line skipped", input: "r " + a + " 0\nc " + a + " /" + strings.Repeat("x", 5000) + "\ng " + a + " 3\n",
			want: map[string]hostRun{a: {group: 3}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runs, done := readHostLines(strings.NewReader(c.input))
			got := map[string]hostRun{}
			for id, r := range runs {
				got[id] = *r
			}
			if done != c.done || !reflect.DeepEqual(got, c.want) {
				t.Errorf("read %q: %v, done %v; want %v, done %v", c.input, got, done, c.want, c.done)
			}
		})
	}
}

// What the host's Watchdog methods write is what the reader takes.
func TestHostLinesRoundTrip(t *testing.T) {
	const id, other = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	wd := &Watchdog{w: w}
	wd.Run(id, 1500*time.Millisecond)
	wd.RunCgroup(id, "/sys/fs/cgroup/tether-"+id)
	wd.RunGroup(id, 4242)
	wd.Run(other, 0)
	wd.RunGroup(other, 17)
	wd.RunGroupGone(other)
	wd.RunOver(other)
	w.Close()
	runs, done := readHostLines(r)
	want := hostRun{grace: 1500 * time.Millisecond, group: 4242, cgroup: "/sys/fs/cgroup/tether-" + id}
	if done || len(runs) != 1 || runs[id] == nil || *runs[id] != want {
		t.Errorf("read back %v, done %v; want only %s: %+v", runs, done, id, want)
	}
}
