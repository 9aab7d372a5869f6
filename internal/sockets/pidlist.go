package sockets

// parsePIDList parses the answer of proc_listpids: native-endian (little,
// on both Mac architectures) 32-bit PIDs; zeros, where the kernel filled
// fewer than it counted, are left out.
func parsePIDList(b []byte) []int {
	pids := make([]int, 0, len(b)/4)
	for i := 0; i+4 <= len(b); i += 4 {
		if pid := int(int32(uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24)); pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}
