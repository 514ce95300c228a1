package submit

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Terraform runs up to -parallelism creates and deletes at once, each in
// its own call to the provider. Where the service takes several objects in
// one activity (create_policies, delete_policies, ...), the batcher makes
// the calls of one kind that arrive together into one activity: one
// approval, and one change for the approvers to read whole.
//
// The words wave, batch, send and submit, alone and split mean one idea
// each, written in the package documentation (doc.go).
//
// The rule, measured in bench/RESULTS.md: a batch is sent
//   - when it is as large as the largest batch of its kind so far:
//     Terraform's wave is full, and nothing more can arrive until it is
//     answered (the first wave has no size to reach). The largest, not the
//     last: a wave that came out short must not make every later one as
//     short;
//   - when nothing new has arrived for a twentieth of sendAfter (25 ms at
//     its default: Terraform dispatches a wave's operations within a few
//     milliseconds of each other on an idle machine);
//   - and never later than sendAfter after its first member.
// A lone create thus waits 25 ms, and a wide apply fills its batches. A
// larger send_after makes the batcher patient in proportion, for a loaded
// machine whose waves arrive slowly.
//
// A batch is sent by the member that fills it, or else by its timer's
// goroutine; the others wait for their own itemActivity.

// QuietShare is the share of sendAfter a batch waits for one more member.
const QuietShare = 20

// DefaultSendAfter is the longest a member waits for others.
const DefaultSendAfter = 500 * time.Millisecond

// Settings are the provider block's batching settings, batching on.
type Settings struct {
	// SendAfter is the longest a member waits for others.
	SendAfter time.Duration
	// Always: batching.enabled was set true, so every operation is
	// batched, even where the provider is sure it needs no approval.
	Always bool
}

// Batcher gathers batches by key (the operation and what must be shared,
// such as the user of OAuth providers).
type Batcher struct {
	sendAfter, quiet time.Duration
	// always: batching.enabled was set true, so every operation is
	// batched, even where the provider is sure it needs no approval.
	always bool

	mu      sync.Mutex
	open    map[string]*batch
	maxSize map[string]int // the largest batch sent, by key
}

// NewBatcher is the batcher of one command, with settings s.
func NewBatcher(s Settings) *Batcher {
	g := newBatcher(s.SendAfter)
	g.always = s.Always
	return g
}

func newBatcher(sendAfter time.Duration) *Batcher {
	return &Batcher{sendAfter: sendAfter, quiet: sendAfter / QuietShare, open: map[string]*batch{}, maxSize: map[string]int{}}
}

// batch is the operations of one kind being gathered, then sent.
type batch struct {
	key     string
	kind    Kind
	c       *client.Client
	members []*batchMember
	first   time.Time
	timer   *time.Timer
}

// batchMember is one operation in a batch: its item, its context (whose
// deadline is its timeout) and, once done is closed, what became of it.
type batchMember struct {
	item    any
	ctx     context.Context
	timeout time.Duration // the operation's own, for messages
	done    chan struct{}
	got     itemActivity
}

// itemActivity is what became of one item: the activity that holds it and
// its position there, or the error of the activity it was sent in.
type itemActivity struct {
	act *client.Activity
	pos int
	err error
	// limit is the timeout the activity's wait ran on: the strictest of
	// its members' for a batch.
	limit time.Duration
}

// errNotSent is what becomes of a member whose context ended before its
// batch was sent: nothing of it reached the service.
var errNotSent = errors.New("not sent: the operation ended while it waited for others to batch with")

// join adds item to the batch of its kind and waits for what becomes of it.
func (g *Batcher) join(ctx context.Context, c *client.Client, kind Kind, item any, timeout time.Duration) itemActivity {
	m := &batchMember{item: item, ctx: ctx, timeout: timeout, done: make(chan struct{})}
	key := kind.key()
	g.mu.Lock()
	b, ok := g.open[key]
	if !ok {
		b = &batch{key: key, kind: kind, c: c, first: time.Now()}
		g.open[key] = b
	}
	b.members = append(b.members, m)
	if full := g.maxSize[key]; full > 1 && len(b.members) >= full {
		g.closeLocked(b)
		g.mu.Unlock()
		b.send()
		<-m.done // a split batch's members are sent alone, after send returns
		return m.got
	}
	wait := min(g.quiet, time.Until(b.first.Add(g.sendAfter)))
	if b.timer == nil {
		b.timer = time.AfterFunc(wait, func() {
			if g.close(b) {
				b.send()
			}
		})
	} else {
		b.timer.Reset(wait)
	}
	g.mu.Unlock()

	select {
	case <-m.done:
		return m.got
	case <-ctx.Done():
	}
	// Interrupted or out of time: leave the batch if it has not gone yet.
	g.mu.Lock()
	if g.open[key] == b {
		b.members = slices.DeleteFunc(b.members, func(other *batchMember) bool { return other == m })
		if len(b.members) == 0 {
			b.timer.Stop()
			delete(g.open, key)
		}
		g.mu.Unlock()
		return itemActivity{err: errors.Join(errNotSent, ctx.Err()), limit: timeout}
	}
	g.mu.Unlock()
	<-m.done // sent: what became of it is coming, and must not be lost
	return m.got
}

// close takes b out of the open batches, if it is still open, for its
// caller to send; new members of its key start a new batch.
func (g *Batcher) close(b *batch) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open[b.key] != b {
		return false
	}
	g.closeLocked(b)
	return true
}

func (g *Batcher) closeLocked(b *batch) {
	if b.timer != nil {
		b.timer.Stop()
	}
	delete(g.open, b.key)
	g.maxSize[b.key] = max(g.maxSize[b.key], len(b.members))
}

// send submits b as one activity and gives each member what became of its
// item. A batch the service refused for one item's sake is split: each
// member is sent alone, on its own context, so that only that item fails.
func (b *batch) send() {
	items := make([]any, len(b.members))
	for i, m := range b.members {
		items[i] = m.item
	}
	ctx, limit, cancel := b.context()
	act, err := b.kind.Submit(ctx, b.c, items)
	cancel()
	if err != nil && len(b.members) > 1 && splitsBatch(err) {
		for _, m := range b.members {
			go func() {
				act, err := b.kind.Submit(m.ctx, b.c, []any{m.item})
				m.got = itemActivity{act: act, err: err, limit: m.timeout}
				close(m.done)
			}()
		}
		return
	}
	for i, m := range b.members {
		m.got = itemActivity{act: act, pos: i, err: err, limit: limit}
		close(m.done)
	}
}

// context is the one the batch is submitted on: it ends at the earliest of
// its members' deadlines, the strictest timeout (limit), and when one of
// them is canceled (Terraform interrupts them all at once). It carries the
// first member's values (its logger: the batch's log lines and the INFO
// line of a wait for approvals reach Terraform's log), none of its
// cancellation or deadline.
func (b *batch) context() (context.Context, time.Duration, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(b.members[0].ctx))
	var deadline time.Time
	limit := b.members[0].timeout
	stops := make([]func() bool, 0, len(b.members))
	for _, m := range b.members {
		limit = min(limit, m.timeout)
		if d, ok := m.ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
			deadline = d
		}
		stops = append(stops, context.AfterFunc(m.ctx, func() {
			if errors.Is(m.ctx.Err(), context.Canceled) {
				cancel(context.Cause(m.ctx))
			}
		}))
	}
	cancelDeadline := context.CancelFunc(func() {})
	if !deadline.IsZero() {
		ctx, cancelDeadline = context.WithDeadline(ctx, deadline)
	}
	return ctx, limit, func() {
		for _, stop := range stops {
			stop()
		}
		cancelDeadline()
		cancel(nil)
	}
}
