package proc

// DefaultRoot is where the kernel's process table is mounted.
const DefaultRoot = "/proc"

// FS is a process table mounted at a root directory: the live /proc
// (Host), or a copy of one on disk (NewFS), so that the readers, not only
// the parsers, run on fixtures.
type FS struct {
	root string
	// live says that root is the kernel's own table: only then does a
	// missing entry get a second opinion from kill(pid, 0), which
	// hidepid cannot hide.
	live bool
}

// Host is the live process table.
func Host() FS { return FS{root: DefaultRoot, live: true} }

// NewFS reads a process table laid out under root as /proc is. Nothing
// outside root is consulted: a missing entry is a process gone.
func NewFS(root string) FS { return FS{root: root} }

// Root is the directory the table is read from.
func (fs FS) Root() string { return fs.root }
