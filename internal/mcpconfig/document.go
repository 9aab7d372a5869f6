package mcpconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Document is a configuration file as read, with its entries.
type Document struct {
	Location Location
	// Target is the file written: Location.Path, or the file it leads
	// to through symbolic links (which are kept).
	Target string
	data   []byte
	info   fs.FileInfo
	mode   fs.FileMode
	owner  fileOwner
	syn    syntax
	found  []found
	w      Wrapping
}

// Open reads and parses the file at loc, whose entries are classified
// for w. A file that does not exist is an error satisfying
// errors.Is(err, fs.ErrNotExist); a refusal is a *Refusal.
func Open(loc Location, w Wrapping) (*Document, error) {
	d := &Document{Location: loc, Target: loc.Path, syn: syntaxOf(loc.Client, loc.Path), w: w}
	// A link anywhere on the path counts: a linked directory
	// (~/.codex to another user's) as much as a linked file.
	var err error
	if d.Target, err = filepath.EvalSymlinks(loc.Path); err != nil {
		return nil, unreadable(loc.Path, err)
	}
	linked := d.Target != filepath.Clean(loc.Path)
	fi, err := os.Stat(d.Target)
	if err != nil {
		return nil, unreadable(loc.Path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, &Refusal{Reason: NotRegular, Path: loc.Path, Target: d.Target}
	}
	d.info, d.mode, d.owner = fi, fi.Mode().Perm(), ownerOf(fi)
	if linked && !d.owner.mine() {
		return nil, &Refusal{Reason: ForeignSymlink, Path: loc.Path, Target: d.Target, Owner: d.owner.uid}
	}
	if err := d.replaceable(fi); err != nil {
		return nil, err
	}
	if d.data, err = os.ReadFile(d.Target); err != nil {
		return nil, unreadable(loc.Path, err)
	}
	if d.found, err = servers(d.syn, d.data); err != nil {
		return nil, &Refusal{Reason: NotParsed, Path: loc.Path, Err: err}
	}
	d.classify()
	return d, nil
}

// unreadable is the error of a file that could not be read at path:
// one that does not exist as it is (errors.Is fs.ErrNotExist), any
// other a *Refusal, Unreadable, whose Err is the system's reason alone
// (a symbolic link loop's "too many links", without the function's
// name in it).
func unreadable(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	// filepath.EvalSymlinks's loop error is a plain one that names
	// the function: the reason alone is kept.
	if msg, ok := strings.CutPrefix(err.Error(), "EvalSymlinks: "); ok {
		err = errors.New(msg)
	}
	return &Refusal{Reason: Unreadable, Path: path, Err: err}
}

// replaceable refuses a file that a rename over it would change in
// more than its bytes. The rename is the directory's to allow, not the
// file's: another user's file would become the caller's (only root can
// give the new one the old owner), a read-only file would be written
// all the same, and a file with other hard links would leave them
// holding the old version.
func (d *Document) replaceable(fi fs.FileInfo) error {
	r := &Refusal{Path: d.Location.Path, Target: d.Target, Owner: d.owner.uid}
	switch n := linkCount(fi); {
	case !d.owner.mine() && !privileged():
		r.Reason = NotOwner
	case fi.Mode().Perm()&0o200 == 0:
		r.Reason = ReadOnly
	case n > 1:
		r.Reason, r.Links = HardLinks, n
	default:
		return nil
	}
	return r
}

// classify tells the stdio entries that already run through tether.
func (d *Document) classify() {
	for i := range d.found {
		if e := &d.found[i].entry; e.Kind == Stdio && (d.w.through(e.Command) || d.w.shaped(*e)) {
			e.Kind = Wrapped
		}
	}
}

// Entries are the file's servers, in the file's order.
func (d *Document) Entries() []Entry {
	out := make([]Entry, len(d.found))
	for i, f := range d.found {
		out[i] = f.entry
	}
	return out
}

// Bytes is the file as read.
func (d *Document) Bytes() []byte { return d.data }

// Wrap plans the wrapping of every stdio entry that does not run
// through tether yet.
func (d *Document) Wrap() (Plan, error) {
	return d.plan(func(f found) (Action, []edit, Entry) {
		switch f.entry.Kind {
		case Wrapped:
			return AlreadyWrapped, nil, f.entry
		case Remote:
			return LeftRemote, nil, f.entry
		case Odd:
			return LeftOdd, nil, f.entry
		}
		prefix := d.w.Prefix(f.entry.Server)
		want := f.entry
		want.Command = d.w.Command
		want.Args = append(append(append([]string{}, prefix...), f.entry.Command), f.entry.Args...)
		return DidWrap, wrapEdits(d.data, d.syn, f, d.w.Command, prefix), want
	})
}

// Unwrap plans giving every entry Wrap wrapped its own command back.
func (d *Document) Unwrap() (Plan, error) {
	return d.plan(func(f found) (Action, []edit, Entry) {
		switch f.entry.Kind {
		case Stdio:
			return NotWrapped, nil, f.entry
		case Remote:
			return LeftRemote, nil, f.entry
		case Odd:
			return LeftOdd, nil, f.entry
		}
		cmd, rest, ok := d.w.original(f.entry.Server, f.entry.Args)
		if !ok {
			return Foreign, nil, f.entry
		}
		want := f.entry
		want.Command, want.Args = cmd, rest
		if added(d.data, f, len(f.entry.Args)-len(rest)) {
			want.Args = nil
		}
		return DidUnwrap, unwrapEdits(d.data, f, len(f.entry.Args)-len(rest)), want
	})
}

// plan makes each entry's edits, checks that the file they make reads
// back as exactly the entries meant, and says per entry what changed.
func (d *Document) plan(each func(found) (Action, []edit, Entry)) (Plan, error) {
	p := Plan{Document: d}
	var all []edit
	var want []Entry
	for _, f := range d.found {
		action, edits, w := each(f)
		c := Change{Entry: f.entry, Action: action}
		if len(edits) > 0 {
			c.Line, c.Before, c.After = diff(d.data, edits)
		}
		p.Changes = append(p.Changes, c)
		all = append(all, edits...)
		want = append(want, w)
	}
	p.Data = apply(d.data, all)
	if err := d.check(p.Data, want); err != nil {
		return Plan{}, err
	}
	return p, nil
}

// check reads data back and compares its entries with want.
func (d *Document) check(data []byte, want []Entry) error {
	got, err := servers(d.syn, data)
	if err == nil && len(got) != len(want) {
		err = fmt.Errorf("%d servers where %d were meant", len(got), len(want))
	}
	if err != nil {
		return &Refusal{Reason: Unexpected, Path: d.Location.Path, Err: err}
	}
	for i, g := range got {
		if !sameEntry(g.entry, want[i]) {
			return &Refusal{Reason: Unexpected, Path: d.Location.Path, Server: want[i].Server,
				Err: fmt.Errorf("read back %q %q, meant %q %q", g.entry.Command, g.entry.Args, want[i].Command, want[i].Args)}
		}
	}
	return nil
}

func sameEntry(a, b Entry) bool {
	if a.Server != b.Server || a.Project != b.Project || a.Command != b.Command || a.URL != b.URL || a.Transport != b.Transport || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if a.Args[i] != b.Args[i] {
			return false
		}
	}
	return true
}
