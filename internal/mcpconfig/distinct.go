package mcpconfig

import "os"

// Distinct is docs with each file once, in their order: a file reached
// at two locations (two clients' paths linked to one file, or one path
// given twice) is edited, backed up and renamed once. Were it planned
// once per location, the last rename would win and the edits of the
// others be lost. The first location of a file is kept. A file that two
// clients read with different layouts (one's servers under "servers",
// the other's under "mcpServers") is refused, a *Refusal, Shared:
// an edit meant for one would be a surprise to the other.
func Distinct(docs []*Document) ([]*Document, error) {
	var out []*Document
	for _, d := range docs {
		i := indexSame(out, d)
		if i < 0 {
			out = append(out, d)
			continue
		}
		if out[i].syn.layout() != d.syn.layout() {
			return nil, &Refusal{Reason: Shared, Path: d.Location.Path, Target: d.Target,
				Other: out[i].Location.Path, Clients: []Client{out[i].Location.Client, d.Location.Client}}
		}
	}
	return out, nil
}

// indexSame is the index of the document in docs that is the same file
// as d (same device and inode where the platform has them), or -1.
func indexSame(docs []*Document, d *Document) int {
	for i, o := range docs {
		if o.info != nil && d.info != nil && os.SameFile(o.info, d.info) {
			return i
		}
	}
	return -1
}
