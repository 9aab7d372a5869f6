package probe

import (
	"fmt"

	"github.com/tetherproc/tether/procid"
)

// parseSupervisor parses marker.SupervisorVar's "PID:START".
func parseSupervisor(v string) (procid.ID, error) {
	id, err := procid.Parse(v)
	if err != nil {
		return procid.ID{}, fmt.Errorf("invalid supervisor %w", err)
	}
	return id, nil
}
