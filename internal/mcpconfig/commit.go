package mcpconfig

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// BackupSuffix is what a backup's name adds to its file's: the time of
// the run, in UTC, so that backups sort by age and none is overwritten.
func BackupSuffix(at time.Time) string {
	return ".tether-backup-" + at.UTC().Format("20060102T150405Z")
}

// Commit writes each plan that changes its file. First, for each: a
// backup of the file as read, beside it (its name plus
// BackupSuffix(at)), and the new version in a temporary file beside it,
// synced, with the file's mode and owner. Then, once every file is
// ready, each original is read again and must be as it was read: else
// nothing is renamed and the run's backups and temporary files are
// removed (a *Refusal, Changed). Last, each temporary file is renamed
// over its original. A crash leaves each file either old or new.
// Commit returns the backups' paths, one per plan, "" where a plan
// changes nothing. A rename that fails stops the run: the error is a
// *WriteError, the backups returned are those of the files already
// replaced, and the others' backups and temporary files are removed.
func Commit(plans []Plan, at time.Time) (_ []string, err error) {
	backups := make([]string, len(plans))
	temps := make([]string, len(plans))
	done := make([]bool, len(plans))
	defer func() {
		for i := range plans {
			removeIf(temps[i])
			// Once a file is replaced, its backup is all that holds
			// what it was: kept, whatever follows.
			if err != nil && !done[i] {
				removeIf(backups[i])
				backups[i] = ""
			}
		}
	}()
	for i, p := range plans {
		if !p.Changed() {
			continue
		}
		if backups[i], err = p.Document.write(p.Document.data, p.Document.Target+BackupSuffix(at)); err != nil {
			return nil, err
		}
		if temps[i], err = p.Document.write(p.Data, ""); err != nil {
			return nil, err
		}
	}
	if err := unchanged(plans, temps); err != nil {
		return nil, err
	}
	for i, p := range plans {
		if temps[i] == "" {
			continue
		}
		if err := rename(temps[i], p.Document.Target); err != nil {
			return backups, &WriteError{Path: p.Document.Location.Path, Err: systemErr(err)}
		}
		temps[i], done[i] = "", true
		// The file is replaced: a directory that cannot be synced
		// makes the rename less durable, not undone.
		_ = syncDir(filepath.Dir(p.Document.Target))
	}
	return backups, nil
}

// rename is os.Rename; a test makes it fail part way through a run.
var rename = os.Rename

// systemErr is a rename's error without the paths it repeats.
func systemErr(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// WriteError is a Commit whose rename of the file at Path failed, after
// the files of the backups it returned were replaced: the others were
// left as they were. Err is the system's reason.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string { return fmt.Sprintf("%s: not replaced: %v", e.Path, e.Err) }

func (e *WriteError) Unwrap() error { return e.Err }

// unchanged checks that each file to be replaced is still as read.
func unchanged(plans []Plan, temps []string) error {
	for i, p := range plans {
		if temps[i] == "" {
			continue
		}
		now, err := os.ReadFile(p.Document.Target)
		if err != nil {
			return err
		}
		if !bytes.Equal(now, p.Document.data) {
			return &Refusal{Reason: Changed, Path: p.Document.Location.Path}
		}
	}
	return nil
}

// write puts data in a new file beside the document's, with its mode
// and owner, synced: at name, which must not exist yet (with -2, -3 ...
// added if it does), or at a temporary name when name is "".
func (d *Document) write(data []byte, name string) (string, error) {
	f, err := d.create(name)
	if err != nil {
		return "", err
	}
	path := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(d.mode)
	}
	if err == nil {
		err = d.owner.keep(f)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

func (d *Document) create(name string) (*os.File, error) {
	if name == "" {
		return os.CreateTemp(filepath.Dir(d.Target), "."+filepath.Base(d.Target)+".tether-*")
	}
	for n := 1; ; n++ {
		try := name
		if n > 1 {
			try = fmt.Sprintf("%s-%d", name, n)
		}
		f, err := os.OpenFile(try, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, os.ErrExist) || n == 100 {
			return f, err
		}
	}
}

func removeIf(path string) {
	if path != "" {
		os.Remove(path)
	}
}
