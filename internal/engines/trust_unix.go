//go:build unix

package engines

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// maxLinks bounds the symbolic links followed on the way to a socket, as
// the kernel's own limit (40) does.
const maxLinks = 40

// vouch checks that the socket at path is an engine's that this process
// may trust, and returns the path with every symbolic link resolved (the
// path to dial, so that no link is read twice) and the socket's owner.
//
// holder is the user whose process the engine is asked about, or -1: for
// root, a socket of that user's is trusted as root's own would be (the
// engine of a user's rootless container is that user's), its group
// writable when the group is one of the user's own or subordinate ones
// (rootless Docker's socket has the group docker of its user namespace,
// which the host sees as a subordinate gid).
//
// Every symbolic link on the way, in the directories as in the last
// component (/var/run is one on most systems; Docker Desktop links
// /var/run/docker.sock into the user's home), is followed only when it is
// owned by root or by this process's user: whoever owns a link decides
// where it leads, so a link of another user's would let that user choose
// the engine. The socket itself must be owned by root or by this user,
// and writable by no one else beyond its group, which must be root's or
// docker's (or, for a socket of this user's, a group of this user's): the
// engine's own socket is made so, and a socket that another user made,
// or that others may reach, is not taken for it.
func vouch(path string, holder int) (resolved string, owner int, err error) {
	done, err := resolve(path, holder)
	if err != nil {
		return "", 0, err
	}
	fi, err := os.Lstat(done)
	if err != nil {
		return "", 0, fmt.Errorf("socket %s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return "", 0, fmt.Errorf("socket %s: %s is not a socket (mode %s): %w", path, done, lsMode(fi.Mode()), ErrUntrusted)
	}
	uid, gid := ownerOf(fi)
	euid := os.Geteuid()
	where := path
	if done != path {
		where = path + " (" + done + ")"
	}
	if !trustedOwner(uid, holder) {
		return "", 0, fmt.Errorf("socket %s is owned by uid %d, group %d, mode %s: %s: %w", where, uid, gid, lsMode(fi.Mode()), whomTrusted(holder), ErrUntrusted)
	}
	perm := fi.Mode().Perm()
	if perm&0o002 != 0 {
		return "", 0, fmt.Errorf("socket %s is owned by uid %d, group %d, mode %s: every user may write to it: %w", where, uid, gid, lsMode(fi.Mode()), ErrUntrusted)
	}
	if perm&0o020 != 0 && !trustedGroup(gid, uid == euid, ownerIfHolder(uid, holder)) {
		return "", 0, fmt.Errorf("socket %s is owned by uid %d, group %d, mode %s: its group may write to it and is neither root's nor docker's: %w", where, uid, gid, lsMode(fi.Mode()), ErrUntrusted)
	}
	return done, uid, nil
}

// trustedOwner reports whether a socket or link owned by uid may lead
// to an engine asked about a process of holder (-1 for none): root's,
// this user's, and for root the holder's.
func trustedOwner(uid, holder int) bool {
	return uid == 0 || uid == os.Geteuid() || holderOwns(uid, holder)
}

// holderOwns reports whether uid is the holder's, whose own engine root
// may ask.
func holderOwns(uid, holder int) bool {
	return holder > 0 && uid == holder && os.Geteuid() == 0
}

// ownerIfHolder is uid when it is the holder's (holderOwns), else 0.
func ownerIfHolder(uid, holder int) int {
	if holderOwns(uid, holder) {
		return uid
	}
	return 0
}

// whomTrusted says whose sockets are trusted, for an error.
func whomTrusted(holder int) string {
	if holder > 0 && os.Geteuid() == 0 {
		return fmt.Sprintf("neither root's nor uid %d's, whose process it is asked about", holder)
	}
	return "neither root nor this user"
}

// resolve follows path's symbolic links one component at a time, each
// only when it is owned by a trusted user (trustedOwner), and returns
// where it leads.
func resolve(path string, holder int) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("socket %s: the path is not absolute: %w", path, ErrUntrusted)
	}
	done := "/"
	rest := strings.Split(path, "/")
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", fmt.Errorf("socket %s: %w", path, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		if uid, _ := ownerOf(fi); !trustedOwner(uid, holder) {
			return "", fmt.Errorf("socket %s: symbolic link %s is owned by uid %d, %s: %w", path, next, uid, whomTrusted(holder), ErrUntrusted)
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("socket %s: more than %d symbolic links", path, maxLinks)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("socket %s: %w", path, err)
		}
		if filepath.IsAbs(target) {
			done = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return done, nil
}

// lsMode writes a file's mode as ls does: srw-rw---- for a socket.
func lsMode(m fs.FileMode) string {
	kind := "-"
	switch {
	case m&fs.ModeSocket != 0:
		kind = "s"
	case m&fs.ModeSymlink != 0:
		kind = "l"
	case m.IsDir():
		kind = "d"
	case m&fs.ModeNamedPipe != 0:
		kind = "p"
	case m&fs.ModeCharDevice != 0:
		kind = "c"
	case m&fs.ModeDevice != 0:
		kind = "b"
	}
	return kind + m.Perm().String()[1:]
}

// ownerOf is the owner and group of a file.
func ownerOf(fi fs.FileInfo) (uid, gid int) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), int(st.Gid)
	}
	return -1, -1
}

// trustedGroup reports whether group gid may write to an engine's
// socket: root's group, the group named docker, for a socket of this
// user's own one of this user's groups or subordinate groups, and for a
// socket of the holder's (holderOwns) the holder's own group or one of
// its subordinate groups. Rootless Docker's socket has the group docker
// of its user namespace, which the host sees as one of its user's
// subordinate gids.
func trustedGroup(gid int, own bool, holder int) bool {
	if gid == 0 {
		return true
	}
	if docker, ok := groupID("docker"); ok && docker == gid {
		return true
	}
	if own {
		if gid == os.Getegid() {
			return true
		}
		if groups, _ := os.Getgroups(); slices.Contains(groups, gid) {
			return true
		}
		name, _, ok := userOf(os.Geteuid())
		return ok && subordinateGID(name, os.Geteuid(), gid)
	}
	if holder > 0 {
		name, primary, ok := userOf(holder)
		return ok && (gid == primary || subordinateGID(name, holder, gid))
	}
	return false
}
