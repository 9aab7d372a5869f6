package proc

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Refused names a call that this kernel or its sandbox does not offer.
func Refused(call string, err error) error {
	switch {
	case errors.Is(err, unix.ENOSYS):
		return fmt.Errorf("%s: %w (not in this kernel)", call, err)
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("%s: %w (refused by a seccomp filter)", call, err)
	}
	return fmt.Errorf("%s: %w", call, err)
}
