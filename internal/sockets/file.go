package sockets

// File is one pipe or socket a process holds (Files): the file it
// names, by device and inode, which of the two it is, and whether the
// process reads or writes through it.
type File struct {
	FD            int
	Dev, Ino      uint64
	Pipe, Socket  bool
	Reads, Writes bool
}
