// Package pollstop is how a watch blocked in poll(2) is stopped: an
// eventfd polled beside the descriptors it watches, written to once. Two
// watches share it, the caller's chain's (pidfds of its ancestors) and
// the hang-up of a stdio client's ends, and both need the same care:
// the watch closes its descriptors itself as it ends, so a stop that
// comes after must not write to a number that may be another file's by
// then, and a watch that saw its event as it was being stopped must not
// report it.
package pollstop
