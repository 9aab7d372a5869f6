package proc

// EnvironInto reads pid's environment into buf. A process caught in the
// middle of an execve reads as having none: while it is young, that is
// midExec; past that, it is read again, the execve having maybe finished
// between the two reads.
func (fs FS) EnvironInto(pid int, buf []byte) (env []byte, midExec bool, err error) {
	env, err = ReadInto(fs.Path(pid, "environ"), buf)
	if err == nil && len(env) == 0 {
		if fs.Executing(pid) && fs.youngPID(pid) {
			return env, true, nil
		}
		env, err = ReadInto(fs.Path(pid, "environ"), env)
	}
	return env, false, err
}
