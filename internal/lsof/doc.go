// Package lsof finds and runs lsof, the fallback of macOS's port lookup
// where libproc's calls are refused. It is found where Apple installs
// it before PATH is searched: cron jobs and CI runners often run with
// PATH=/usr/bin:/bin, which leaves /usr/sbin out. It is run so that it
// cannot hang a reclaim: -b (no kernel call that can block, such as a
// stat of a dead network mount), -w (no warnings on standard error) and
// a time limit.
package lsof
