package abandoned

import (
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/sockets"
)

// addPorts fills in the listeners each tree's members hold.
func addPorts(fs proc.FS, trees []Tree) {
	if len(trees) == 0 {
		return
	}
	ls, err := sockets.Listeners()
	if err != nil || len(ls) == 0 {
		return
	}
	inodes := make(map[uint64]bool, len(ls))
	for ino := range ls {
		inodes[ino] = true
	}
	for i := range trees {
		var pids []int
		for _, m := range trees[i].Members {
			pids = append(pids, m.ID.PID)
		}
		held, _ := sockets.SocketHolders(fs, inodes, pids)
		seen := map[uint64]bool{}
		for _, pid := range pids {
			for _, ino := range held[pid] {
				if !seen[ino] {
					seen[ino] = true
					trees[i].Ports = append(trees[i].Ports, ls[ino])
				}
			}
		}
	}
}
