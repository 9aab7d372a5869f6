//go:build linux || darwin

package spawn

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/runtree"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/procid"
)

// end ends the trees of cs side by side, Stop's of one child and Close's
// of all: one escalation for the children of each grace, each look at
// the trees shared by all of them. It returns each child's error, nil
// when its tree is gone.
func (h *Host) end(ctx context.Context, cs []*Child) map[*Child]error {
	byGrace := map[time.Duration][]*Child{}
	for _, c := range cs {
		byGrace[c.cfg.Grace] = append(byGrace[c.cfg.Grace], c)
	}
	errs := make(map[*Child]error, len(cs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for grace, group := range byGrace {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := h.endGroup(ctx, grace, group)
			mu.Lock()
			defer mu.Unlock()
			for c, err := range got {
				errs[c] = err
			}
		}()
	}
	wg.Wait()
	return errs
}

// ending is one escalation over several children's trees: what was seen
// of each, whose each member of the last look is, and how the strays of
// the uncontained ones are searched for.
type ending struct {
	children []*Child
	// seen is what was seen of each child's tree, followed until it is
	// gone, also once its parent has been ended and it has left the
	// child's subtree.
	seen map[*Child][]procid.ID
	// grouped says whose process group took the first TERM.
	grouped map[*Child]bool
	// owner is, for each member of the last look, its child.
	owner map[procid.ID]*Child
	// byRun finds the child a stray belongs to by its run id.
	byRun map[string]*Child
	full  bool // the search read every process (traced once)
	// searched is when strays were last searched for.
	searched time.Time
	// born is how far the search by birth has come, as Host.born.
	born   [2]int
	bornOK bool
	// fresh says the trees were listed right before the TERM: the first
	// look takes that list rather than reading them again.
	fresh bool
	// holding are the children whose PIDs the last look found still
	// theirs (running, or exited and not yet reaped): no stray.
	holding map[int]bool
}

// strayEvery is how often strays are searched for while the trees are
// being ended, the first time this long after the TERM, and before the
// end is believed (a tree that ends on TERM is searched once, as it
// ends). What was found once is followed by itself: a stray gets its
// TERM at most this late, and the rest of the grace.
const strayEvery = 50 * time.Millisecond

// endGroup is Stop's escalation for children with one grace: each
// child's group at once, also what of it is not listed yet, then every
// member found; each member gets one TERM, its group's or its own.
func (h *Host) endGroup(ctx context.Context, grace time.Duration, cs []*Child) map[*Child]error {
	en := &ending{
		children: cs,
		seen:     map[*Child][]procid.ID{},
		grouped:  map[*Child]bool{},
		byRun:    map[string]*Child{},
		searched: time.Now(),
	}
	held := make(map[*Child]bool, len(cs))
	trees := ptree.Look(proc.Host())
	h.mu.Lock()
	for _, c := range cs {
		if !c.groupGone {
			c.kept = c.list(trees) // for the escalation, not the record: it goes
		}
		held[c] = !c.groupGone // list has just looked
		en.seen[c] = slices.Clone(c.kept)
		en.byRun[c.cfg.RunID] = c
	}
	en.born, en.bornOK = h.born, h.bornOK
	h.mu.Unlock()
	for _, c := range cs {
		en.grouped[c] = held[c] && unix.Kill(-c.pid, syscall.SIGTERM) == nil
	}
	// The first look is the list just made: what died of the TERM since
	// is skipped by its signal (gone), what was forked since is the
	// next look's.
	en.fresh = true
	t := runtree.Tree{
		What:    en.what(),
		Sources: []runtree.Source{runtree.SourceFunc(en.look)},
		Send:    en.send,
		KillAll: en.killAll,
		Wait:    en.wait,
	}
	if t.End(ctx, grace) {
		return nil
	}
	return en.errors(ctx)
}

// what names the escalation in trace lines.
func (en *ending) what() string {
	if len(en.children) == 1 {
		return en.children[0].what()
	}
	return fmt.Sprintf("end of %d children", len(en.children))
}

// look lists the live members of every child's run: its tree with what
// was seen before, its cgroup's, and the strays that carry its run id.
// It reports too whether one of the caller's processes is in the middle
// of an execve, and cannot be told a member or not yet.
func (en *ending) look() ([]procid.ID, bool) {
	if en.fresh {
		en.fresh = false
		owner := map[procid.ID]*Child{}
		var all []procid.ID
		for _, c := range en.children {
			for _, m := range en.seen[c] {
				if owner[m] == nil {
					owner[m] = c
					all = append(all, m)
				}
			}
		}
		if len(all) > 0 {
			en.owner = owner
			return all, false
		}
	}
	fs := proc.Host()
	// Read before the trees: what is born later is the next search's.
	mark, markOK := lastPID()
	all, owner := en.trees()
	executing := false
	if len(all) == 0 || time.Since(en.searched) >= strayEvery {
		en.searched = time.Now()
		pids := make(map[int]bool, len(owner))
		for m := range owner {
			pids[m.PID] = true
		}
		for pid := range en.holding {
			pids[pid] = true
		}
		known := func(pid int) bool { return pids[pid] }
		h := en.children[0].host
		vs, ex, spanned, full := h.strays(en.children, en.born[0], mark, en.bornOK && markOK, known)
		switch {
		case !markOK:
			en.bornOK = false
		case spanned:
			en.born = [2]int{en.born[1], mark}
		default:
			en.born, en.bornOK = [2]int{mark, mark}, true
		}
		if full && !en.full {
			en.full = true
			trace.Printf("%s: no children lists to follow: every process read for strays", en.what())
		}
		executing = len(ptree.OwnedPIDs(fs, ex, os.Getuid())) > 0
		for _, v := range vs {
			if c := en.byRun[v.Value]; c != nil && owner[v.ID] == nil {
				owner[v.ID] = c
				all = append(all, v.ID)
				en.seen[c] = append(en.seen[c], v.ID)
			}
		}
	}
	en.owner = owner
	return all, executing
}

// trees lists the live members of every child's tree, with what was
// seen before and its cgroup's, each with its child; what is new is
// followed from now on. The trees are read before the strays: an orphan
// only ever moves from a tree to the caller's line of ancestors.
func (en *ending) trees() ([]procid.ID, map[procid.ID]*Child) {
	owner := map[procid.ID]*Child{}
	var all []procid.ID
	t := ptree.Look(proc.Host()) // one look at every child's tree
	add := func(c *Child, ms []procid.ID) {
		for _, m := range ms {
			if owner[m] == nil {
				owner[m] = c
				all = append(all, m)
			}
		}
	}
	en.holding = make(map[int]bool, len(en.children))
	for _, c := range en.children {
		tree, held := c.tree(t, en.seen[c])
		if !held {
			c.goneGroup()
		}
		if held {
			en.holding[c.pid] = true
		}
		add(c, tree)
		add(c, c.group.Members())
	}
	for m, c := range owner {
		if !slices.Contains(en.seen[c], m) {
			en.seen[c] = append(en.seen[c], m)
		}
	}
	return all, owner
}

// send signals one member; TERM is not sent again to one its group's
// TERM reached.
func (en *ending) send(m procid.ID, sig syscall.Signal) error {
	c := en.owner[m]
	if sig == syscall.SIGTERM && c != nil && en.grouped[c] && c.inGroup(m) {
		return nil
	}
	if c != nil {
		if h, ok := c.member(m); ok {
			return h.Signal(sig)
		}
	}
	return kill.Signal(m, sig)
}

// waitOn bounds how many members a wait holds handles on: past it the
// wait is the 5 ms it would be anyway.
const waitOn = 64

// wait returns once a member of the last look exits, 5 ms later, or at
// the deadline: a member that ends on TERM is seen gone as it goes, not
// a sleep later. Not woken by ctx: past it the members have had KILL,
// and a wait that returned at once would spin over the looks.
func (en *ending) wait(deadline time.Time) {
	until := time.Now().Add(min(5*time.Millisecond, max(time.Millisecond, time.Until(deadline))))
	hs := make([]*pidfd.Handle, 0, min(len(en.owner), waitOn))
	var opened []*pidfd.Handle
	for m, c := range en.owner {
		if len(hs) == waitOn {
			break
		}
		if h, ok := c.member(m); ok {
			hs = append(hs, h) // the child's own, kept
		} else if h, err := pidfd.Open(proc.Host(), m.PID); err == nil {
			hs = append(hs, h)
			opened = append(opened, h)
		}
	}
	if len(hs) == 0 {
		time.Sleep(time.Until(until))
		return
	}
	pidfd.Exited(hs, until)
	for _, h := range opened {
		h.Close()
	}
}

// killAll is KILL to each child's cgroup and process group, as the
// grace ends.
func (en *ending) killAll() {
	for _, c := range en.children {
		c.group.KillAll()
		c.groupSignal(syscall.SIGKILL)
	}
}

// errors are the StopErrors of the children with members left alive.
func (en *ending) errors(ctx context.Context) map[*Child]error {
	err := fmt.Errorf("still alive %v after SIGKILL", kill.WaitAfterKill)
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	left := map[*Child][]int{}
	for m, c := range en.owner {
		left[c] = append(left[c], m.PID)
	}
	errs := map[*Child]error{}
	for c, pids := range left {
		slices.Sort(pids)
		errs[c] = &StopError{Name: c.cfg.Name, RunID: c.cfg.RunID, Left: pids, Err: err}
	}
	return errs
}

// strayed is the search for the strays of runs: the oldest start among
// their children, and their run ids' entries.
func strayed(cs []*Child) (since uint64, entries []string) {
	for i, c := range cs {
		if i == 0 || c.started < since {
			since = c.started
		}
		entries = append(entries, c.entry())
	}
	return since, entries
}
