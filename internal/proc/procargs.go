package proc

// ProcArgs is what macOS's kern.procargs2 sysctl returns for a process.
type ProcArgs struct {
	Path string   // the executable's path, as given to execve
	Args []string // argv
	Env  []string // the environment
}
