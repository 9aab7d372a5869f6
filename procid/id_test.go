package procid_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tetherproc/tether/procid"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want procid.ID
		ok   bool
	}{
		{"1:2", procid.ID{PID: 1, StartTime: 2}, true},
		{"4194304:18446744073709551615", procid.ID{PID: 4194304, StartTime: 1<<64 - 1}, true},
		{"12:0", procid.ID{PID: 12}, true},
		{"", procid.ID{}, false},
		{"12", procid.ID{}, false},
		{"0:5", procid.ID{}, false},
		{"-3:5", procid.ID{}, false},
		{"3:-5", procid.ID{}, false},
		{"3:5:7", procid.ID{}, false},
		{" 3:5", procid.ID{}, false},
	} {
		got, err := procid.Parse(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("Parse(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("Parse(%q).String() = %q", tc.in, got.String())
		}
	}
}

// The zero ID is written "" and read back from it, in JSON too: a run
// record without a watchdog.
func TestZero(t *testing.T) {
	var zero procid.ID
	if zero.String() != "" || !zero.IsZero() {
		t.Errorf("zero: %q, IsZero %v", zero.String(), zero.IsZero())
	}
	type rec struct {
		W procid.ID   `json:"w"`
		M []procid.ID `json:"m"`
	}
	b, err := json.Marshal(rec{M: []procid.ID{{PID: 7, StartTime: 9}}})
	if err != nil || string(b) != `{"w":"","m":["7:9"]}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var back rec
	if err := json.Unmarshal(b, &back); err != nil || !back.W.IsZero() || back.M[0] != (procid.ID{PID: 7, StartTime: 9}) {
		t.Errorf("Unmarshal = %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"w":"x"}`), &back); err == nil {
		t.Error("Unmarshal of a bad ID: no error")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1:0", "42:7", "x:y", ":", "99999999999999999999:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := procid.Parse(s)
		if err != nil {
			return
		}
		again, err := procid.Parse(id.String())
		if err != nil || again != id || id.PID <= 0 {
			t.Fatalf("procid.Parse(%q) = %v, which reads back as %v, %v", s, id, again, err)
		}
	})
}

func ExampleParse() {
	id, err := procid.Parse("4242:1234567")
	if err != nil {
		panic(err)
	}
	fmt.Println(id.PID, id.StartTime, id)
	// Output: 4242 1234567 4242:1234567
}
