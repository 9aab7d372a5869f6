//go:build linux || darwin

package watchdog

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tetherproc/tether/procid"
)

// The supervisor tells the watchdog, one line at a time on a pipe (the
// watchdog's fd 3), what to end should it die:
//
//	g PGID   the command's process group, once the command runs
//	g-       the group is gone (the command is reaped: its number may be
//	         another's from now on)
//	c DIR    the run's cgroup, before the command is born in it
//	d        done: the supervisor ended normally, nothing is to be ended
//
// A line counts only whole: a value is taken at its newline, and a line
// that cannot be read (an unknown word, spaces around one, a group that is
// not a number below 2^31, a directory of PATH_MAX bytes or more) is
// skipped, leaving what came before in place. A group or directory left
// empty ("g ", "c ", "g 0") means none. The supervisor's death is the
// pipe's end. Three readers follow these rules: the waiter
// (_asm/waiter_linux_amd64.asm), the shell script below, and the Go second
// stage (readLines); one table of cases in the tests runs against all
// three.
//
// Beside the pipe, the supervisor keeps the list of its tree in a file the
// watchdog reads after the supervisor's death (fd 5): "r RUN_ID" first
// (a run's watchdog; none for a host's), then "PID START" lines, then
// "end", written over in place (Record). The run id is there and not
// among the watchdog's arguments: a command line is anyone's to read,
// and a run id is its owner's secret; the file is a memfd, which only
// the owner (and root) can open through /proc.

// Lines of the protocol.
const (
	lineDone      = "d"
	lineGroupGone = "g-"
	prefixGroup   = "g "
	prefixCgroup  = "c "
	// prefixRunID heads the list of the tree (fd 5), not the pipe.
	prefixRunID = "r "
)

// pathMax bounds the cgroup directory, as the waiter's buffer does.
const pathMax = 4096

// maxGroup is the largest process group number: pid_t is 32 bits.
const maxGroup = 1<<31 - 1

// watchScript is the watchdog's first stage where the waiter cannot run:
// a shell, a fraction of a Go program's start-up time and memory, blocked
// on the pipe (fd 3). Only if the supervisor dies without saying it is
// done does the shell act: it sends TERM to the command's group with its
// built-in kill and kills the run's cgroup whole by writing its
// cgroup.kill, neither of which needs a new process (a machine out of
// processes is one way a supervisor dies), then hands over to the program
// itself ($1: on Linux fd 4, opened before the supervisor could die),
// which ends the rest of the run. Signals aimed at tether's terminal or
// group are ignored, and stay ignored across the exec. IFS= keeps a
// line's spaces, so that " d" is not "d"; leading zeros are dropped before
// a number is measured, as the shell's kill would read one of 011 as
// octal.
const watchScript = `trap '' HUP INT QUIT TERM PIPE
x=$1
shift
g= c=
while IFS= read -r w <&3; do
	case $w in
	d) exit 0 ;;
	g-) g= ;;
	'g '*)
		n=${w#g }
		while [ "${n#0}" != "$n" ]; do n=${n#0}; done
		case $n in
		*[!0-9]*) ;;
		'') g= ;;
		*) [ ${#n} -le 10 ] && [ "$n" -le 2147483647 ] && g=$n ;;
		esac ;;
	'c '*)
		n=${w#c }
		[ ${#n} -lt 4096 ] && c=$n ;;
	esac
done
[ -n "$g" ] && kill -TERM -"$g" 2>/dev/null
[ -n "$c" ] && { echo 1 >"$c/cgroup.kill"; } 2>/dev/null
exec "$x" ` + Arg + ` "$@" "$c"`

// state is what the supervisor's lines have said so far.
type state struct {
	group  int    // the command's process group; 0 none
	cgroup string // the run's cgroup; "" none
}

// readLines reads the supervisor's lines until the pipe's end, as the
// waiter and the shell do: done when it said so.
func readLines(r io.Reader) (s state, done bool) {
	done = eachLine(r, len(prefixCgroup)+pathMax+1, s.apply)
	return s, done
}

// eachLine hands each whole line of r, its newline cut, to apply until
// apply says done (true) or the pipe ends (false). size is room for the
// longest line the protocol has: a longer one is skipped to its end, and
// a line cut short by the pipe's end does not count.
func eachLine(r io.Reader, size int, apply func(line string) bool) bool {
	br := bufio.NewReaderSize(r, size)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			continue
		}
		if err != nil {
			return false // the supervisor died
		}
		if apply(string(line[:len(line)-1])) {
			return true
		}
	}
}

// apply takes one whole line: true for done.
func (s *state) apply(line string) bool {
	switch {
	case line == lineDone:
		return true
	case line == lineGroupGone:
		s.group = 0
	case strings.HasPrefix(line, prefixGroup):
		if n, ok := groupNumber(line[len(prefixGroup):]); ok {
			s.group = n
		}
	case strings.HasPrefix(line, prefixCgroup):
		if dir := line[len(prefixCgroup):]; len(dir) < pathMax {
			s.cgroup = dir
		}
	}
	return false
}

// groupNumber reads the digits of a "g" line: no sign, no spaces, at most
// maxGroup; empty is 0 (none).
func groupNumber(digits string) (int, bool) {
	n := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
		if n > maxGroup {
			return 0, false
		}
	}
	return n, true
}

// tell writes one line to the watchdog's pipe. A write that fails finds
// the watchdog gone: nothing is left to tell.
func (wd *Watchdog) tell(line string) {
	if wd == nil {
		return
	}
	_, _ = wd.w.Write([]byte(line + "\n"))
}

// Group tells the watchdog the command's process group, once the
// command runs: the group it sends TERM to first, should the supervisor
// die.
func (wd *Watchdog) Group(pgid int) { wd.tell(prefixGroup + strconv.Itoa(pgid)) }

// GroupGone tells the watchdog that the command is reaped: its group's
// number may be another's from now on.
func (wd *Watchdog) GroupGone() { wd.tell(lineGroupGone) }

// Cgroup tells the watchdog the run's cgroup, before the command is born
// in it: killed whole from the first moment on.
func (wd *Watchdog) Cgroup(dir string) {
	if dir != "" {
		wd.tell(prefixCgroup + dir)
	}
}

// Record writes the tree as it is now for the watchdog, which reads it
// only if the supervisor dies: the members that no environment scan can
// find (renamed, env-cleared) are ended from it, with their subtrees.
func (wd *Watchdog) Record(ms []procid.ID) {
	if wd == nil {
		return
	}
	b := encodeMembers(wd.runID, ms)
	if bytes.Equal(b, wd.last) {
		return
	}
	wd.last = b
	_, _ = wd.members.WriteAt(b, 0)
	_ = wd.members.Truncate(int64(len(b)))
}

// encodeMembers is the list of the tree as the watchdog reads it, after
// the run's id (none for ""). The reader stops at "end": what an older,
// longer list left behind a write cut short by SIGKILL is never read;
// the run id, the same in every write, is never cut.
func encodeMembers(runID string, ms []procid.ID) []byte {
	var b []byte
	if runID != "" {
		b = append(append(append(b, prefixRunID...), runID...), '\n')
	}
	for _, m := range ms {
		b = strconv.AppendInt(b, int64(m.PID), 10)
		b = append(b, ' ')
		b = strconv.AppendUint(b, m.StartTime, 10)
		b = append(b, '\n')
	}
	return append(b, "end\n"...)
}

// decodeMembers reads the list encodeMembers wrote, up to its "end";
// lines that do not parse are skipped.
func decodeMembers(data []byte) []procid.ID {
	var ms []procid.ID
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if string(line) == "end" {
			break
		}
		pid, start, ok := bytes.Cut(line, []byte{' '})
		p, err1 := strconv.Atoi(string(pid))
		s, err2 := strconv.ParseUint(string(start), 10, 64)
		if ok && err1 == nil && err2 == nil && p > 0 {
			ms = append(ms, procid.ID{PID: p, StartTime: s})
		}
	}
	return ms
}

// decodeRunID reads the run id at the head of the list: "" when there
// is none.
func decodeRunID(data []byte) string {
	line, _, _ := bytes.Cut(data, []byte{'\n'})
	id, ok := bytes.CutPrefix(line, []byte(prefixRunID))
	if !ok {
		return ""
	}
	return string(id)
}

// readList reads the list the supervisor last wrote: nil when it cannot.
func readList(f *os.File) []byte {
	data, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<30))
	if err != nil {
		return nil
	}
	return data
}

// readMembers reads the tree from the list the supervisor last wrote.
func readMembers(f *os.File) []procid.ID { return decodeMembers(readList(f)) }
