package e2e

import (
	"fmt"
	"os/exec"
	"syscall"
	"testing"
)

// sigMasks parses "SigBlk=HEX SigIgn=HEX", as the test's parent and
// command print them.
func sigMasks(t *testing.T, who, line string) (blocked, ignored uint64) {
	t.Helper()
	if _, err := fmt.Sscanf(line, "SigBlk=%x SigIgn=%x", &blocked, &ignored); err != nil {
		t.Fatalf("%s printed %q, want its SigBlk and SigIgn: %v", who, line, err)
	}
	return blocked, ignored
}

func sigBit(sig syscall.Signal) uint64 { return 1 << (uint(sig) - 1) }

// tini's signal-state test, restated: started with TERM, ILL and TTIN
// blocked and INT and TTOU ignored, the command finds TTIN blocked and
// INT and TTOU ignored. TERM and ILL it finds unblocked: Go's runtime
// unblocks them on tether's threads before any of tether's code runs,
// the fork takes the forking thread's mask, and the mask tether was
// started with is kept only in the runtime (docs/signals.md).
func TestRunKeepsBlockedSignals(t *testing.T) {
	perl, err := exec.LookPath("perl")
	if err != nil {
		t.Skip("no perl to block and ignore the signals before tether starts")
	}
	const report = `/^Sig(Blk|Ign):/ { printf "%s=%s ", substr($1, 1, 6), $2 } END { print "" }`
	// The parent reports its own masks, then execs tether, which keeps
	// them; the command (awk, not a Go program) reports its own.
	parent := `use POSIX;
sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGTERM, SIGILL, SIGTTIN)) or die "sigprocmask: $!";
$SIG{INT} = $SIG{TTOU} = "IGNORE";
$| = 1;
exec "awk", $ARGV[0], "/proc/$$/status" if fork() == 0;
wait;
exec @ARGV[1..$#ARGV] or die "exec: $!";`
	r := startProgram(t, perl, nil, "-e", parent, report, tetherBin, "run", "--", "awk", report, "/proc/self/status")
	pblk, pign := sigMasks(t, "the parent", r.line(t))
	if want := sigBit(syscall.SIGTERM) | sigBit(syscall.SIGILL) | sigBit(syscall.SIGTTIN); pblk&want != want || pign&(sigBit(syscall.SIGINT)|sigBit(syscall.SIGTTOU)) == 0 {
		t.Fatalf("the parent's masks: blocked %#x, ignored %#x; want TERM ILL TTIN blocked, INT TTOU ignored", pblk, pign)
	}
	blk, ign := sigMasks(t, "the command", r.line(t))
	if code := r.wait(t); code != 0 {
		t.Errorf("exit %d, want 0 (stderr %q)", code, r.errOut.String())
	}
	if want := sigBit(syscall.SIGINT) | sigBit(syscall.SIGTTOU); ign&want != want {
		t.Errorf("the command's ignored signals %#x; want INT and TTOU among them (%#x)", ign, want)
	}
	if blk&sigBit(syscall.SIGTTIN) == 0 {
		t.Errorf("the command's blocked signals %#x; want TTIN among them", blk)
	}
	t.Logf("the parent's blocked signals %#x, the command's %#x (TERM and ILL are unblocked by Go's runtime)", pblk, blk)
}
