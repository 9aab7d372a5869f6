// Package digest is SHA-256 (FIPS 180-4) without crypto/sha256, which
// links Go's FIPS 140 module into every binary that imports it: its
// packages' init and the pages they touch cost tether run about 0.4 MiB
// of resident memory and a share of its start-up, for the one hash it
// takes (a run's cgroup token, internal/cgroup). The tests hold it to
// crypto/sha256 on every length up to several blocks and on fuzzed
// input.
package digest
