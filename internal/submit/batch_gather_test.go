package submit

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

// recordingSend is a Kind.Submit that records the batches it was
// given and answers each with an activity whose id names the batch, and
// with err for a batch of more than one item (errAlone for one alone).
type recordingSend struct {
	mu       sync.Mutex
	batches  [][]any
	sentAt   []time.Time
	err      error
	errAlone func(item any) error
}

func (r *recordingSend) submit(_ context.Context, _ *client.Client, items []any) (*client.Activity, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, slices.Clone(items))
	r.sentAt = append(r.sentAt, time.Now())
	act := &client.Activity{ID: fmt.Sprintf("batch-%d", len(r.batches))}
	if len(items) == 1 && r.errAlone != nil {
		return act, r.errAlone(items[0])
	}
	return act, r.err
}

// kind is a Kind of the operation named key whose submits r records.
func (r *recordingSend) kind(key string) Kind {
	return Kind{Shape: client.ItemShape{Op: client.Operation{Name: key}}, Submit: r.submit}
}

func (r *recordingSend) sizes() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int
	for _, b := range r.batches {
		out = append(out, len(b))
	}
	return out
}

// joinAll joins n items of kind "k" at once and returns what became of each.
func joinAll(t *testing.T, g *Batcher, n int, rs *recordingSend) []itemActivity {
	t.Helper()
	out := make([]itemActivity, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = g.join(t.Context(), nil, rs.kind("k"), i, time.Minute)
		}()
	}
	wg.Wait()
	return out
}

// TestBatcherBatchesWhatArrivesTogether: items that arrive together go out
// as one batch, and each member gets the batch's activity and its own
// item's position in it, never another's.
func TestBatcherBatchesWhatArrivesTogether(t *testing.T) {
	g := newBatcher(time.Second)
	rs := &recordingSend{}
	out := joinAll(t, g, 20, rs)
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

// TestBatcherSendsALoneItemAfterTheQuietGap: a lone create waits for
// others a twentieth of send_after (25 ms at the default), not send_after.
func TestBatcherSendsALoneItemAfterTheQuietGap(t *testing.T) {
	g := newBatcher(DefaultSendAfter)
	rs := &recordingSend{}
	start := time.Now()
	o := g.join(t.Context(), nil, rs.kind("k"), "only", time.Minute)
	took := time.Since(start)
	if quiet := g.quiet; o.err != nil || o.pos != 0 || took < quiet || took > 10*quiet {
		t.Fatalf("%+v after %v; want position 0 after about %v", o, took, quiet)
	}
}

// TestBatcherSendsAFullWaveAtOnce: once a batch of k went out, the next k
// members of the key go out as soon as the k-th arrives.
func TestBatcherSendsAFullWaveAtOnce(t *testing.T) {
	g := newBatcher(10 * time.Second)
	g.quiet = 5 * time.Second // only a full wave can send in time
	rs := &recordingSend{}
	g.maxSize[rs.kind("k").key()] = 4
	start := time.Now()
	joinAll(t, g, 4, rs)
	if took := time.Since(start); took > time.Second {
		t.Fatalf("a full wave took %v to go", took)
	}
	if got := rs.sizes(); !slices.Equal(got, []int{4}) {
		t.Fatalf("batches of %v, want one of 4", got)
	}
}

// TestBatcherNeverWaitsPastSendAfter: members that keep arriving within
// the quiet gap are sent send_after after the first.
func TestBatcherNeverWaitsPastSendAfter(t *testing.T) {
	g := newBatcher(200 * time.Millisecond)
	g.quiet = 100 * time.Millisecond
	rs := &recordingSend{}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Add(1)
		go func() { defer wg.Done(); g.join(t.Context(), nil, rs.kind("k"), i, time.Minute) }()
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

// TestBatcherKeysDoNotMix: items of different keys never share a batch.
func TestBatcherKeysDoNotMix(t *testing.T) {
	g := newBatcher(time.Second)
	a, b := &recordingSend{}, &recordingSend{}
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				g.join(t.Context(), nil, a.kind("create_oauth_providers/userId=u1"), i, time.Minute)
			} else {
				g.join(t.Context(), nil, b.kind("create_oauth_providers/userId=u2"), i, time.Minute)
			}
		}()
	}
	wg.Wait()
	if !slices.Equal(a.sizes(), []int{3}) || !slices.Equal(b.sizes(), []int{3}) {
		t.Fatalf("batches %v and %v, want one of 3 per key", a.sizes(), b.sizes())
	}
}

// TestBatcherSplitsAFaultOfOneItem: a batch that the service refused for
// what one item may have caused alone is split by its sender: each member
// is sent alone and gets what became of its own item, so that only the bad
// item fails. Any other error is every member's, unchanged, and nothing is
// sent again.
func TestBatcherSplitsAFaultOfOneItem(t *testing.T) {
	refused := &client.ActivityError{ActivityID: "act-batch", Status: client.StatusFailed}
	bad := errors.New("item 1 is bad")
	g := newBatcher(time.Second)
	rs := &recordingSend{err: refused, errAlone: func(item any) error {
		if item == 1 {
			return bad
		}
		return nil
	}}
	checkSplit(t, g, rs, bad)
	// A full wave is sent by the member that fills it: it splits the same.
	rs.batches = nil
	g.maxSize[rs.kind("k").key()] = 3
	checkSplit(t, g, rs, bad)

	// A denial is the batch's whole: not split.
	denied := &client.ActivityError{ActivityID: "act-denied", Status: client.StatusFailed,
		Failure: &client.Status{Code: client.CodePermissionDenied}}
	rs = &recordingSend{err: denied}
	for _, o := range joinAll(t, newBatcher(time.Second), 3, rs) {
		if !errors.Is(o.err, denied) {
			t.Fatalf("a denied batch's member got %+v", o)
		}
	}
	if got := rs.sizes(); !slices.Equal(got, []int{3}) {
		t.Fatalf("a denied batch was sent as %v, want once whole", got)
	}
	// A batch of one has nothing to split.
	rs = &recordingSend{err: refused}
	if o := newBatcher(time.Second).join(t.Context(), nil, rs.kind("k"), 1, time.Minute); !errors.Is(o.err, refused) || len(rs.batches) != 1 {
		t.Fatalf("a lone member got %+v after %d sends", o, len(rs.batches))
	}
}

// checkSplit joins items 0, 1 and 2 in one batch that rs refuses whole, and
// checks that each was then sent alone, with item 1 failing with bad.
func checkSplit(t *testing.T, g *Batcher, rs *recordingSend, bad error) {
	t.Helper()
	out := joinAll(t, g, 3, rs)
	if got := rs.sizes(); !slices.Equal(got, []int{3, 1, 1, 1}) {
		t.Fatalf("batches of %v, want the batch of 3 and each item alone", got)
	}
	for item, o := range out {
		if o.pos != 0 || o.act == nil || o.act.ID == "batch-1" {
			t.Fatalf("item %d: %+v, want its own activity", item, o)
		}
		if !slices.ContainsFunc(rs.batches, func(b []any) bool { return len(b) == 1 && b[0] == item }) {
			t.Fatalf("item %d was not sent alone", item)
		}
		if wantBad := item == 1; errors.Is(o.err, bad) != wantBad || (!wantBad && o.err != nil) {
			t.Fatalf("item %d: error %v", item, o.err)
		}
	}
}

// TestBatcherLetsAnEndedMemberLeave: a member whose context ends before
// its batch goes out leaves it, unsent; the others are sent without it.
func TestBatcherLetsAnEndedMemberLeave(t *testing.T) {
	g := newBatcher(time.Second)
	g.quiet = 300 * time.Millisecond
	rs := &recordingSend{}
	ctx, cancel := context.WithCancel(t.Context())
	left := make(chan itemActivity)
	go func() { left <- g.join(ctx, nil, rs.kind("k"), "leaves", time.Minute) }()
	stays := make(chan itemActivity)
	go func() { stays <- g.join(t.Context(), nil, rs.kind("k"), "stays", time.Minute) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if o := <-left; !errors.Is(o.err, errNotSent) {
		t.Fatalf("the ended member got %+v, want errNotSent", o)
	}
	if o := <-stays; o.err != nil || len(rs.batches) != 1 || !slices.Equal(rs.batches[0], []any{"stays"}) {
		t.Fatalf("the other member got %+v; batches %v", o, rs.batches)
	}
}

// TestBatcherSendsOnTheStrictestDeadline: the batch's context ends at the
// earliest of its members' deadlines.
func TestBatcherSendsOnTheStrictestDeadline(t *testing.T) {
	g := newBatcher(time.Second)
	var got time.Time
	kind := Kind{Shape: client.ItemShape{Op: client.Operation{Name: "k"}}, Submit: func(ctx context.Context, _ *client.Client, _ []any) (*client.Activity, error) {
		got, _ = ctx.Deadline()
		return &client.Activity{}, ctx.Err()
	}}
	early := time.Now().Add(time.Minute)
	var wg sync.WaitGroup
	limits := make([]time.Duration, 3)
	for i, d := range []time.Duration{time.Hour, time.Minute, 2 * time.Hour} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(d))
			defer cancel()
			limits[i] = g.join(ctx, nil, kind, d, d).limit
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
	kind := func(scope map[string]any) Kind {
		return Kind{Shape: client.ItemShape{Op: client.OpCreateOauthProviders, ItemsKey: "oauthProviders", Scope: scope}}
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
