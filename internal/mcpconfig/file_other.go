//go:build !unix

package mcpconfig

import (
	"io/fs"
	"os"
)

// fileOwner is a file's owner where the platform has no uids: a
// symbolic link is followed only to a file whose owner is not asked.
type fileOwner struct{ uid, gid int }

func ownerOf(fs.FileInfo) fileOwner { return fileOwner{-1, -1} }

func (fileOwner) mine() bool { return true }

func privileged() bool { return false }

// linkCount is 1 where the file's links are not counted by the
// platform's FileInfo.
func linkCount(fs.FileInfo) int { return 1 }

func (fileOwner) keep(*os.File) error { return nil }

// syncDir does nothing where a directory cannot be opened to be synced
// (Windows): the rename is as durable as the platform makes it.
func syncDir(string) error { return nil }
