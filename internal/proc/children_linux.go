package proc

import (
	"bytes"
	"strconv"
)

// ReadChildren appends the PIDs of a children list to out. A list longer
// than one read (a page) is read afresh on each read, and a child that
// exits between two reads shifts the rest, which may skip one: such a
// list is read twice.
func ReadChildren(path string, out []int, buf []byte) ([]int, []byte, error) {
	var first map[int]bool
	for pass := 0; pass < 2; pass++ {
		data, err := readFile(path, buf, shortRecords)
		buf = data
		if err != nil {
			return out, buf, err
		}
		for _, f := range bytes.Fields(data) {
			c, err := strconv.Atoi(string(f))
			switch {
			case err != nil:
			case pass == 0 || !first[c]:
				out = append(out, c)
			}
		}
		if len(data) < 4000 {
			break
		}
		if pass == 0 {
			first = make(map[int]bool, len(out))
			for _, c := range out {
				first[c] = true
			}
		}
	}
	return out, buf, nil
}
