package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An apply that timed out while its activity waited for approval leaves
// that activity behind; once people approve it, it acts. Submitting the
// same change again would make a second activity, and the change would
// happen twice once both are approved. A client made with AdoptPending
// therefore looks, before each submit, for an activity of the same type and
// intent that its key submitted and that still waits for approval, and
// adopts it instead; and, for a create, one that completed after approval
// and whose object still exists (adopt_created.go): the create approved
// while Terraform was away.

// approvalWindow is how long the service keeps approvals open; an activity
// older than that can no longer be adopted.
const approvalWindow = 24 * time.Hour

// pendingActivities finds activities this key left waiting, listing each
// activity type at most once per command.
type pendingActivities struct {
	mu      sync.Mutex
	byType  map[string]*candidates
	claimed map[string]bool // "<activity id>" or "<activity id>#<position>"
}

// candidates is one type's listing. done is closed when the first caller's
// listing ends; a failed one is dropped from byType, so that the next
// caller lists again rather than inherit the error (or the cancellation)
// of the first.
type candidates struct {
	done chan struct{}
	list []Activity
	err  error
}

func newPendingActivities() *pendingActivities {
	return &pendingActivities{byType: map[string]*candidates{}, claimed: map[string]bool{}}
}

// maxCandidatePages bounds the listing; at 100 per page that is the newest
// thousand activities of one type.
const maxCandidatePages = 10

// candidatesOf lists, once per command, the activities of op's type that
// this key left waiting (or that completed after approval, for a create
// whose object adoptable reads back).
func (p *pendingActivities) candidatesOf(ctx context.Context, c *Client, op Operation) ([]Activity, error) {
	p.mu.Lock()
	cands, ok := p.byType[op.Type]
	if !ok {
		cands = &candidates{done: make(chan struct{})}
		p.byType[op.Type] = cands
	}
	p.mu.Unlock()
	if !ok {
		_, completedToo := createdReaders[op.Name]
		cands.list, cands.err = listCandidates(ctx, c, op.Type, completedToo)
		if cands.err != nil {
			p.mu.Lock()
			delete(p.byType, op.Type)
			p.mu.Unlock()
		}
		close(cands.done)
	} else {
		select {
		case <-cands.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("looking for an earlier %s activity still waiting for approval: %w", op.Type, ctx.Err())
		}
		if cands.err != nil {
			return p.candidatesOf(ctx, c, op) // the first caller's listing failed: list again
		}
	}
	if cands.err != nil {
		return nil, &StepError{Step: fmt.Sprintf("looking for an earlier %s activity still waiting for approval", op.Type), Err: cands.err}
	}
	return cands.list, nil
}

// claim finds the first candidate of list, by position in it and then by
// item, that match accepts and nothing has claimed, and claims it. key
// names a claim; match returns the item's position and whether it matches.
func (p *pendingActivities) claim(list []Activity, match func(act *Activity) []int) (*Activity, int, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for a := range list {
		act := &list[a]
		for _, pos := range match(act) {
			key := act.ID
			if pos >= 0 {
				key += "#" + strconv.Itoa(pos)
			}
			if !p.claimed[key] {
				p.claimed[key] = true
				return act, max(pos, 0), key
			}
		}
	}
	return nil, 0, ""
}

// adopt claims candidates that match, in turn, until one is adoptable: a
// completed create whose object is gone stays claimed (nothing adopts it)
// and the search goes on. A failed read-back releases its claim.
func (p *pendingActivities) adopt(ctx context.Context, c *Client, op Operation, list []Activity, match func(act *Activity) []int) (*Activity, int, error) {
	for {
		act, pos, key := p.claim(list, match)
		if act == nil {
			return nil, 0, nil
		}
		ok, err := c.adoptable(ctx, op, act, pos)
		if err != nil {
			p.mu.Lock()
			delete(p.claimed, key)
			p.mu.Unlock()
			return nil, 0, err
		}
		if ok {
			return act, pos, nil
		}
		c.debug(ctx, "not adopting a completed create whose object is gone", map[string]any{"activity_id": act.ID, "position": pos})
	}
}

// find returns an adoptable, unclaimed activity of op whose intent equals
// params.
func (p *pendingActivities) find(ctx context.Context, c *Client, op Operation, params any) (*Activity, error) {
	list, err := p.candidatesOf(ctx, c, op)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	want, err := normalizedJSON(params)
	if err != nil {
		return nil, err
	}
	act, _, err := p.adopt(ctx, c, op, list, func(act *Activity) []int {
		got, err := normalizedJSON(act.Intent[op.IntentKey])
		if err == nil && reflect.DeepEqual(got, want) {
			return []int{-1}
		}
		return nil
	})
	return act, err
}

// ItemShape says where the items of an operation that takes several
// objects at once sit in its intent: the list under ItemsKey, every item
// sharing the values of Scope (such as the user of OAuth providers).
type ItemShape struct {
	Op       Operation
	ItemsKey string
	Scope    map[string]any
}

// itemAdopted are the operations whose earlier activities are adopted item
// by item (AdoptItem), not whole: a batch of the next run need not group
// its items as the earlier one did.
var itemAdopted = map[string]bool{
	OpCreatePolicies.Name: true, OpDeletePolicies.Name: true, OpCreateOauthProviders.Name: true,
	OpDeleteOauthProviders.Name: true, OpDeletePrivateKeyTags.Name: true,
}

// AdoptItem is adoption (see pendingActivities) for one item of a batch
// operation: it looks for an activity this key left waiting whose intent
// holds item at a position that nothing adopted yet, waits for it as a
// submit would, and returns it with the item's position. It returns a nil
// activity when there is none (or the client does not adopt).
func (c *Client) AdoptItem(ctx context.Context, shape ItemShape, item any) (*Activity, int, error) {
	if c.pending == nil {
		return nil, 0, nil
	}
	prior, pos, err := c.pending.findItem(ctx, c, shape, item)
	if err != nil || prior == nil {
		return nil, 0, err
	}
	act, err := c.awaitAdopted(ctx, shape.Op, prior)
	return act, pos, err
}

// awaitAdopted waits for prior, an activity of op adopted from an earlier
// run, as a submit waits for its own; a wait that ends without its end is
// a *LostAnswerError naming it (lostWait). The activity comes
// back with the error too.
func (c *Client) awaitAdopted(ctx context.Context, op Operation, prior *Activity) (*Activity, error) {
	act, err := c.WaitForActivity(ctx, prior.ID)
	if err == nil {
		return act, nil
	}
	if act == nil {
		act = prior
	}
	return act, lostWait(op, act, err)
}

// Items reads the items of act's intent, an activity of s.Op: the list
// under s.ItemsKey, and the intent's other fields, which s.Scope must
// match. ok is false for an intent of another shape.
func (s ItemShape) Items(act *Activity) (items []json.RawMessage, others map[string]json.RawMessage, ok bool) {
	if json.Unmarshal(act.Intent[s.Op.IntentKey], &others) != nil || json.Unmarshal(others[s.ItemsKey], &items) != nil {
		return nil, nil, false
	}
	delete(others, s.ItemsKey)
	return items, others, true
}

func (p *pendingActivities) findItem(ctx context.Context, c *Client, shape ItemShape, item any) (*Activity, int, error) {
	list, err := p.candidatesOf(ctx, c, shape.Op)
	if err != nil || len(list) == 0 {
		return nil, 0, err
	}
	want, err := normalizedJSON(item)
	if err != nil {
		return nil, 0, err
	}
	scope, err := normalizedJSON(shape.Scope)
	if err != nil {
		return nil, 0, err
	}
	return p.adopt(ctx, c, shape.Op, list, func(act *Activity) []int {
		items, others, ok := shape.Items(act)
		if !ok {
			return nil
		}
		got, err := normalizedJSON(others)
		sameScope := reflect.DeepEqual(got, scope) || (isEmpty(got) && isEmpty(scope))
		if err != nil || !sameScope {
			return nil
		}
		var at []int
		for i, raw := range items {
			if got, err := normalizedJSON(raw); err == nil && reflect.DeepEqual(got, want) {
				at = append(at, i)
			}
		}
		return at
	})
}

// listCandidates lists the activities of one type that this key submitted
// and that wait for consensus, or (with completedToo) completed after
// consensus, within the approval window.
func listCandidates(ctx context.Context, c *Client, typ string, completedToo bool) ([]Activity, error) {
	var out []Activity
	cutoff := time.Now().Add(-approvalWindow)
	statuses := []string{StatusConsensusNeeded}
	if completedToo {
		statuses = append(statuses, StatusCompleted)
	}
	page := &Pagination{Limit: "100"}
	for i := 0; i < maxCandidatePages; i++ {
		resp, err := c.ListActivities(ctx, ListActivitiesRequest{
			FilterByStatus:    statuses,
			FilterByType:      []string{typ},
			PaginationOptions: page,
		})
		if err != nil {
			return nil, err
		}
		for _, act := range resp.Activities {
			if t, err := act.CreatedAt.Time(); err == nil && t.Before(cutoff) {
				return out, nil
			}
			if len(act.Votes) == 0 || act.Votes[0].PublicKey != c.PublicKey() {
				continue
			}
			if act.Status == StatusConsensusNeeded || (completedToo && act.Status == StatusCompleted && approvals(act) >= 2) {
				out = append(out, act)
			}
		}
		if len(resp.Activities) < 100 {
			return out, nil
		}
		page = &Pagination{Limit: "100", After: resp.Activities[len(resp.Activities)-1].ID}
	}
	return out, nil
}

func approvals(act Activity) int {
	n := 0
	for _, v := range act.Votes {
		if v.Selection == VoteApproved {
			n++
		}
	}
	return n
}

// normalizedJSON decodes v (a value or raw JSON) into plain Go values with
// nulls, empty lists and empty objects dropped, so that an intent echoed by
// the service compares equal to the parameters that produced it.
func normalizedJSON(v any) (any, error) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	// Numbers are compared exactly (exactNumber): as float64, two ids or
	// amounts that differ only past 2^53 would compare equal, and an
	// activity could be mistaken for another.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return dropEmpty(out), nil
}

// exactNumber is a JSON number as its exact value's canonical decimal
// text: 1, 1.0 and 1e0 are the same number, 9007199254740993 and
// 9007199254740992 are not. It encodes back as that number.
type exactNumber string

func (n exactNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }

// maxExactExponent bounds the exponents written out in full: past it a
// number keeps its text, so that 1e999999999 cannot ask for a billion digits.
const maxExactExponent = 1000

// newExactNumber canonicalises a JSON number. A JSON number is a finite
// decimal, so its exact value has a finite decimal expansion.
func newExactNumber(text string) exactNumber {
	if _, exp, found := strings.Cut(strings.ToLower(text), "e"); found {
		if e, err := strconv.Atoi(exp); err != nil || e > maxExactExponent || e < -maxExactExponent {
			return exactNumber(text)
		}
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return exactNumber(text)
	}
	if r.IsInt() {
		return exactNumber(r.Num().String())
	}
	digits, p, ten := 0, big.NewInt(1), big.NewInt(10)
	for new(big.Int).Mod(p, r.Denom()).Sign() != 0 {
		p.Mul(p, ten)
		digits++
	}
	return exactNumber(r.FloatString(digits))
}

func dropEmpty(v any) any {
	switch t := v.(type) {
	case json.Number:
		return newExactNumber(t.String())
	case map[string]any:
		for k, e := range t {
			e = dropEmpty(e)
			if isEmpty(e) {
				delete(t, k)
			} else {
				t[k] = e
			}
		}
	case []any:
		for i, e := range t {
			t[i] = dropEmpty(e)
		}
	}
	return v
}

func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}
