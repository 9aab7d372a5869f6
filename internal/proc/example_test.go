package proc_test

import (
	"fmt"

	"github.com/tetherproc/tether/internal/proc"
)

// The command name may hold parentheses and spaces; the fields are read
// from the last ')'.
func ExampleParseStat() {
	st, err := proc.ParseStat([]byte("5971 (x) Z (y z) S 5970 5965 1051 0 -1 4194304 133 0 0 0 0 0 0 0 20 0 1 0 31814 2990080 402"))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q state %c ppid %d start %d\n", st.Comm, st.State, st.PPID, st.StartTime)
	// Output: "x) Z (y z" state S ppid 5970 start 31814
}
