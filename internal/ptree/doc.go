// Package ptree walks the process table as a tree and scans it as a
// whole: the subtrees a supervisor owns, the live members of a list
// written down earlier, the strays its children left behind, and the
// processes that carry a marker in their environment.
//
// It exists apart from internal/proc, whose readers it walks with,
// because a walk is a policy, not a reading: which links are trusted (a
// child never older than its parent), what a zombie counts for, when a
// process caught in an execve holds a cleanup up. Each walk is written
// once and named once, so that spawn, reclaim, runtree and the tests ask
// the same question the same way:
//
//   - Subtree is the subtree of a PID, read live: by the kernel's
//     children lists on Linux, by parent links over a snapshot elsewhere.
//     Snapshot.Subtree is the same walk by parent links over a snapshot
//     already taken, with a process group added; Trees.Subtree is the
//     same walk within one look at several trees, from a stat in hand.
//   - Alive and Snapshot.Alive tell one member live, by a fresh read or
//     from a snapshot; Living filters a list of any length with one
//     listing of the table; Trees.AliveWithSubtrees adds each live
//     member's subtree.
//   - Scan, ScanAny and ScanValues read every environment; Strays and
//     StraysBorn read only where an orphan can be.
package ptree
