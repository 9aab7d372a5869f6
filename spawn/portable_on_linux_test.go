//go:build linux && tetherportable

package spawn_test

// portable says the tests run Supervise's portable path (the
// tetherportable build tag): no child subreaper, no parent-death signal,
// no containment.
const portable = true
