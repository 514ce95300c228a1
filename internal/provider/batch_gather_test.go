package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// recordingSend is a sendBatch that records the batches it was given and
// answers each with an activity whose id names the batch.
type recordingSend struct {
	mu      sync.Mutex
	batches [][]any
	sentAt  []time.Time
	err     error
	split   bool
}

func (r *recordingSend) send(_ context.Context, items []any) (*client.Activity, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, slices.Clone(items))
	r.sentAt = append(r.sentAt, time.Now())
	return &client.Activity{ID: fmt.Sprintf("batch-%d", len(r.batches))}, r.err
}

func (r *recordingSend) splits(error) bool { return r.split }

func (r *recordingSend) sizes() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int
	for _, b := range r.batches {
		out = append(out, len(b))
	}
	return out
}

// joinAll joins n items at once and returns their outcomes by item.
func joinAll(t *testing.T, g *gatherer, key string, n int, rs *recordingSend) []batchOutcome {
	t.Helper()
	out := make([]batchOutcome, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = g.join(t.Context(), key, i, time.Minute, rs.send, rs.splits)
		}()
	}
	wg.Wait()
	return out
}

// TestGathererBatchesWhatArrivesTogether: items that arrive together go out
// as one batch, and each member gets the batch's activity and its own
// item's position in it, never another's.
func TestGathererBatchesWhatArrivesTogether(t *testing.T) {
	g := newGatherer(time.Second)
	rs := &recordingSend{}
	out := joinAll(t, g, "k", 20, rs)
	if got := rs.sizes(); !slices.Equal(got, []int{20}) {
		t.Fatalf("batches of %v, want one of 20", got)
	}
	for item, o := range out {
		if o.err != nil || o.act.ID != "batch-1" {
			t.Fatalf("item %d: %+v", item, o)
		}
		if sent := rs.batches[0][o.pos]; sent != item {
			t.Fatalf("item %d was given position %d, which holds item %v", item, o.pos, sent)
		}
	}
}

// TestGathererSendsALoneItemAfterTheQuietGap: a lone create waits for
// others a twentieth of send_after (25 ms at the default), not send_after.
func TestGathererSendsALoneItemAfterTheQuietGap(t *testing.T) {
	g := newGatherer(DefaultBatchSendAfter)
	rs := &recordingSend{}
	start := time.Now()
	o := g.join(t.Context(), "k", "only", time.Minute, rs.send, rs.splits)
	took := time.Since(start)
	if quiet := g.quiet; o.err != nil || o.pos != 0 || took < quiet || took > 10*quiet {
		t.Fatalf("%+v after %v; want position 0 after about %v", o, took, quiet)
	}
}

// TestGathererSendsAFullWaveAtOnce: once a batch of k went out, the next k
// members of the key go out as soon as the k-th arrives.
func TestGathererSendsAFullWaveAtOnce(t *testing.T) {
	g := newGatherer(10 * time.Second)
	g.quiet = 5 * time.Second // only a full wave can send in time
	g.maxSize["k"] = 4
	rs := &recordingSend{}
	start := time.Now()
	joinAll(t, g, "k", 4, rs)
	if took := time.Since(start); took > time.Second {
		t.Fatalf("a full wave took %v to go", took)
	}
	if got := rs.sizes(); !slices.Equal(got, []int{4}) {
		t.Fatalf("batches of %v, want one of 4", got)
	}
}

// TestGathererNeverWaitsPastSendAfter: members that keep arriving within
// the quiet gap are sent send_after after the first.
func TestGathererNeverWaitsPastSendAfter(t *testing.T) {
	g := newGatherer(200 * time.Millisecond)
	g.quiet = 100 * time.Millisecond
	rs := &recordingSend{}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Add(1)
		go func() { defer wg.Done(); g.join(t.Context(), "k", i, time.Minute, rs.send, rs.splits) }()
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	first := rs.sentAt[0].Sub(start)
	if first < 190*time.Millisecond || first > 400*time.Millisecond {
		t.Fatalf("the first batch went after %v, want about 200ms (send_after)", first)
	}
	if sizes := rs.sizes(); len(sizes) < 2 {
		t.Fatalf("batches %v: items arriving for 600ms were all held in one", sizes)
	}
}

// TestGathererKeysDoNotMix: items of different keys never share a batch.
func TestGathererKeysDoNotMix(t *testing.T) {
	g := newGatherer(time.Second)
	a, b := &recordingSend{}, &recordingSend{}
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				g.join(t.Context(), "create_oauth_providers/userId=u1", i, time.Minute, a.send, a.splits)
			} else {
				g.join(t.Context(), "create_oauth_providers/userId=u2", i, time.Minute, b.send, b.splits)
			}
		}()
	}
	wg.Wait()
	if !slices.Equal(a.sizes(), []int{3}) || !slices.Equal(b.sizes(), []int{3}) {
		t.Fatalf("batches %v and %v, want one of 3 per key", a.sizes(), b.sizes())
	}
}

// TestGathererSplitsAFaultOfOneItem: a batch that fails for one item's
// sake tells every member to send its own; any other error is every
// member's, unchanged.
func TestGathererSplitsAFaultOfOneItem(t *testing.T) {
	boom := errors.New("refused")
	for _, split := range []bool{true, false} {
		g := newGatherer(time.Second)
		rs := &recordingSend{err: boom, split: split}
		for _, o := range joinAll(t, g, "k", 3, rs) {
			if o.alone != split || !errors.Is(o.err, boom) {
				t.Fatalf("split=%v: outcome %+v", split, o)
			}
		}
	}
	// A batch of one has nothing to split.
	g := newGatherer(time.Second)
	rs := &recordingSend{err: boom, split: true}
	if o := g.join(t.Context(), "k", 1, time.Minute, rs.send, rs.splits); o.alone {
		t.Fatalf("a lone member was told to go alone: %+v", o)
	}
}

// TestGathererLetsAnEndedMemberLeave: a member whose context ends before
// its batch goes out leaves it, unsent; the others are sent without it.
func TestGathererLetsAnEndedMemberLeave(t *testing.T) {
	g := newGatherer(time.Second)
	g.quiet = 300 * time.Millisecond
	rs := &recordingSend{}
	ctx, cancel := context.WithCancel(t.Context())
	left := make(chan batchOutcome)
	go func() { left <- g.join(ctx, "k", "leaves", time.Minute, rs.send, rs.splits) }()
	stays := make(chan batchOutcome)
	go func() { stays <- g.join(t.Context(), "k", "stays", time.Minute, rs.send, rs.splits) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if o := <-left; !errors.Is(o.err, errNotSent) {
		t.Fatalf("the ended member got %+v, want errNotSent", o)
	}
	if o := <-stays; o.err != nil || len(rs.batches) != 1 || !slices.Equal(rs.batches[0], []any{"stays"}) {
		t.Fatalf("the other member got %+v; batches %v", o, rs.batches)
	}
}

// TestGathererSendsOnTheStrictestDeadline: the batch's context ends at the
// earliest of its members' deadlines.
func TestGathererSendsOnTheStrictestDeadline(t *testing.T) {
	g := newGatherer(time.Second)
	var got time.Time
	send := func(ctx context.Context, _ []any) (*client.Activity, error) {
		got, _ = ctx.Deadline()
		return &client.Activity{}, ctx.Err()
	}
	early := time.Now().Add(time.Minute)
	var wg sync.WaitGroup
	limits := make([]time.Duration, 3)
	for i, d := range []time.Duration{time.Hour, time.Minute, 2 * time.Hour} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(d))
			defer cancel()
			limits[i] = g.join(ctx, "k", d, d, send, func(error) bool { return false }).limit
		}()
	}
	wg.Wait()
	limit := slices.Max(limits)
	if got.Sub(early).Abs() > time.Second {
		t.Fatalf("the batch's deadline is %v, want the strictest, about %v", got, early)
	}
	if limit != time.Minute {
		t.Fatalf("the batch's outcome names a timeout of %v, want the strictest, 1m0s", limit)
	}
}

// TestBatchKeysNeverMergeScopes: two scopes that differ in any value, of
// any type, are two keys, and one scope is one key however its map is
// iterated.
func TestBatchKeysNeverMergeScopes(t *testing.T) {
	kind := func(scope map[string]any) batchKind {
		return batchKind{shape: client.ItemShape{Op: client.OpCreateOauthProviders, ItemsKey: "oauthProviders", Scope: scope}}
	}
	distinct := []map[string]any{nil, {"userId": "u1"}, {"userId": "u2"}, {"userId": 1}, {"userId": 2}, {"userId": "1"},
		{"userId": "u1", "n": 1}, {"userId": "u1", "n": 2}}
	seen := map[string]int{}
	for i, scope := range distinct {
		key := kind(scope).key()
		if j, ok := seen[key]; ok {
			t.Fatalf("scopes %v and %v share the key %q", distinct[j], scope, key)
		}
		seen[key] = i
	}
	many := map[string]any{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6"}
	first := kind(many).key()
	for range 100 {
		if got := kind(many).key(); got != first {
			t.Fatalf("one scope gave the keys %q and %q", first, got)
		}
	}
}
