package provider

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
// one activity (create_policies, delete_policies, ...), the gatherer makes
// the calls of one kind that arrive together into one batch: one activity,
// one approval, and one change for the approvers to read whole.
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
// larger send_after makes the gathering patient in proportion, for a
// loaded machine whose waves arrive slowly.

// quietShare is the share of sendAfter a batch waits for one more member.
const quietShare = 20

// DefaultBatchSendAfter is the longest a member waits for others.
const DefaultBatchSendAfter = 500 * time.Millisecond

// gatherer collects batches by key (the operation and what must be shared,
// such as the user of OAuth providers).
type gatherer struct {
	sendAfter, quiet time.Duration

	mu      sync.Mutex
	open    map[string]*gathering
	maxSize map[string]int // the largest batch sent, by key
}

func newGatherer(sendAfter time.Duration) *gatherer {
	return &gatherer{sendAfter: sendAfter, quiet: sendAfter / quietShare, open: map[string]*gathering{}, maxSize: map[string]int{}}
}

// gathering is one batch being gathered, then sent.
type gathering struct {
	key     string
	members []*batchMember
	first   time.Time
	timer   *time.Timer
	send    sendBatch
	split   splitBatch
}

// batchMember is one operation in a batch: its item, its context (whose
// deadline is its timeout) and, once done is closed, its outcome.
type batchMember struct {
	item    any
	ctx     context.Context
	timeout time.Duration // the operation's own, for messages
	done    chan struct{}
	out     batchOutcome
}

// batchOutcome is what a member gets back: the activity and its position
// in it, or the error of the whole batch. alone asks the member to send
// its item by itself: the batch failed for one item's sake, and only that
// item's own request can say which.
type batchOutcome struct {
	act   *client.Activity
	pos   int
	err   error
	alone bool
	// limit is the strictest of the members' timeouts, which the batch
	// ran on.
	limit time.Duration
}

// sendBatch sends items as one activity, on ctx, whose item i belongs to
// the i-th member. The activity comes back with most errors too.
type sendBatch func(ctx context.Context, items []any) (*client.Activity, error)

// splitBatch tells an error that one item may have caused alone, so that
// each member should send its own item.
type splitBatch func(err error) bool

// errNotSent is the outcome of a member whose context ended before its
// batch was sent: nothing of it reached the service.
var errNotSent = errors.New("not sent: the operation ended while it waited for others to batch with")

// join adds item to the batch of key and waits for its outcome. send and
// split are the batch's, the same for every member of one key.
func (g *gatherer) join(ctx context.Context, key string, item any, timeout time.Duration, send sendBatch, split splitBatch) batchOutcome {
	m := &batchMember{item: item, ctx: ctx, timeout: timeout, done: make(chan struct{})}
	g.mu.Lock()
	b, ok := g.open[key]
	if !ok {
		b = &gathering{key: key, first: time.Now(), send: send, split: split}
		g.open[key] = b
	}
	b.members = append(b.members, m)
	if full := g.maxSize[key]; full > 1 && len(b.members) >= full {
		g.fireLocked(b)
	} else {
		wait := min(g.quiet, time.Until(b.first.Add(g.sendAfter)))
		if b.timer == nil {
			b.timer = time.AfterFunc(wait, func() { g.fire(b) })
		} else {
			b.timer.Reset(wait)
		}
	}
	g.mu.Unlock()

	select {
	case <-m.done:
		return m.out
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
		return batchOutcome{err: errors.Join(errNotSent, ctx.Err())}
	}
	g.mu.Unlock()
	<-m.done // sent: the outcome is coming, and must not be lost
	return m.out
}

func (g *gatherer) fire(b *gathering) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open[b.key] == b {
		g.fireLocked(b)
	}
}

// fireLocked sends b: new members of its key start a new batch.
func (g *gatherer) fireLocked(b *gathering) {
	if b.timer != nil {
		b.timer.Stop()
	}
	delete(g.open, b.key)
	g.maxSize[b.key] = max(g.maxSize[b.key], len(b.members))
	go b.run()
}

// run sends the batch on a context that ends at the earliest of its
// members' deadlines, the strictest timeout, and when one of them is
// canceled (Terraform interrupts them all at once), and hands each member
// its outcome.
func (b *gathering) run() {
	// The first member's values (its logger: the batch's log lines and
	// the INFO line of an approval wait reach Terraform's log), none of
	// its cancellation or deadline.
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(b.members[0].ctx))
	defer cancel(nil)
	var deadline time.Time
	items := make([]any, len(b.members))
	for i, m := range b.members {
		items[i] = m.item
		if d, ok := m.ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
			deadline = d
		}
		stop := context.AfterFunc(m.ctx, func() {
			if errors.Is(m.ctx.Err(), context.Canceled) {
				cancel(context.Cause(m.ctx))
			}
		})
		defer stop()
	}
	limit := b.members[0].timeout
	for _, m := range b.members {
		limit = min(limit, m.timeout)
	}
	if !deadline.IsZero() {
		var cancelDeadline context.CancelFunc
		ctx, cancelDeadline = context.WithDeadline(ctx, deadline)
		defer cancelDeadline()
	}
	act, err := b.send(ctx, items)
	alone := err != nil && len(b.members) > 1 && b.split(err)
	for i, m := range b.members {
		m.out = batchOutcome{act: act, pos: i, err: err, alone: alone, limit: limit}
		close(m.done)
	}
}
