// Package users reads the user and group databases (/etc/passwd,
// /etc/group, /etc/subgid) as files, rather than through os/user, whose
// lookups link the C library's resolver into the binary. A user or
// group that only a directory service knows is not found: callers then
// fail closed (a socket of such a group is not trusted) or show the
// bare id.
package users
