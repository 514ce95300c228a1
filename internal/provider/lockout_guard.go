package provider

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// The lockout guard keeps a plan from locking Terraform out of the
// organization's policies. Terraform usually runs as an API user whose
// policy changes a policy allows; a change that adds a deny on policy
// changes, or removes that allow, succeeds, and from then on every policy
// change the pipeline submits is denied, the one that would undo it
// included. Only the root quorum can recover.
//
// For each policy change planned in the command, the guard decides the
// provider's own user (whoami, from the credentials check), acting alone,
// on the activity types that manage policies, with the organization's
// policies before the command and after every change planned so far:
// changes that are harmless alone can lock Terraform out together. It
// reuses the command's one list_policies (cachedPolicies), and asks
// get_organization_configs only when it is about to report, to learn
// whether the user is a root user who acts through the root quorum.

// policyManagementTypes are the activities the provider manages policies
// with.
var policyManagementTypes = []string{client.OpCreatePolicies.Type, client.OpUpdatePolicy.Type, client.OpDeletePolicy.Type, client.OpDeletePolicies.Type}

// lockoutGuard holds, for one walk of one command (the providerData's
// life), the policies before the command and every change planned since.
type lockoutGuard struct {
	pd   *providerData
	skip bool // skip_policy_lockout_check: warn instead of failing

	// The first reads: kept once they succeed, read again by the next
	// caller after a failure (another caller's context canceled included).
	base   firstSuccess[*guardBase]
	quorum firstSuccess[*client.Quorum]

	mu      sync.Mutex // guards what follows, and the guardTypes of base
	changes []plannedPolicyChange
	unknown bool // a planned change is not known until apply: the guard stops judging
}

// plannedPolicyChange is one planned change of a custody_policy.
type plannedPolicyChange struct {
	id      string            // the policy's id; "" for a create
	after   *policyset.Policy // nil for a delete
	unknown bool              // the planned content is not known until apply
	what    string            // "creating policy \"x\"", for messages
}

// guardBase is the organization as the command found it, and the user's
// standing on each policy management type as the changes planned so far
// leave it.
type guardBase struct {
	who   *client.WhoamiResponse
	byID  map[string]int // policy id → slot
	types []*guardType   // one per policyManagementTypes
}

// guardType is the user's standing on one activity type. A plan of N
// policy changes checks N times, so each check updates a tally of the
// outcomes in place (policyset.Tally) instead of deciding N policies
// again; the policies are named only in a report.
type guardType struct {
	req policyset.Request
	e   *policyset.Evaluator
	// the organization's policies before the command: names and outcomes
	baseNames   []string
	baseResults []policyset.Result
	baseTally   policyset.Tally
	// after the changes planned so far: a slot per base policy (a deleted
	// one has an empty outcome, which counts for nothing), then the new ones
	names   []string
	results []policyset.Result
	tally   policyset.Tally
}

// newLockoutGuard is the guard of a provider whose credentials check runs:
// without whoami it cannot know whom to decide for.
func newLockoutGuard(pd *providerData, skip bool) *lockoutGuard {
	return &lockoutGuard{pd: pd, skip: skip, base: newFirstSuccess[*guardBase](), quorum: newFirstSuccess[*client.Quorum]()}
}

// check records a planned change and reports, on the resource being
// planned, a lockout that the changes planned so far would cause.
func (g *lockoutGuard) check(ctx context.Context, c plannedPolicyChange, diags *diag.Diagnostics) {
	base, err := g.baseline(ctx)
	if err != nil {
		// It never blocks what it cannot judge.
		diags.AddWarning("Policy lockout check not made", "The provider could not read what it needs to check that "+c.what+
			" leaves Terraform able to change policies: "+err.Error())
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.changes = append(g.changes, c)
	if g.unknown || c.unknown {
		if !g.unknown {
			tflog.Debug(ctx, "lockout guard: a planned policy change is not known until apply; the apply checks it", map[string]any{"change": c.what})
		}
		g.unknown = true
		return
	}
	prev := make([]policyset.Tally, len(base.types))
	for t, gt := range base.types {
		prev[t] = gt.tally
		gt.apply(base.byID, c)
	}
	found := g.judge(base, nil, prev)
	if len(found) == 0 {
		return
	}
	if rq := g.rootQuorum(ctx); rq != nil && slices.Contains(rq.UserIDs, base.who.UserID) {
		// A root user may act through the root quorum: decide again with it.
		found = g.judge(base, rq, prev)
	}
	g.reportLockout(base, len(g.changes)-1, found, diags)
}

// apply makes change c to the policy set after the changes so far.
func (gt *guardType) apply(byID map[string]int, c plannedPolicyChange) {
	slot, ok := byID[c.id]
	if !ok || c.id == "" {
		if c.after == nil {
			return // a policy the organization no longer holds
		}
		slot = len(gt.results)
		gt.results, gt.names = append(gt.results, policyset.Result{}), append(gt.names, "")
	}
	gt.tally.Add(gt.results[slot], -1)
	gt.results[slot], gt.names[slot] = policyset.Result{}, ""
	if c.after != nil {
		gt.results[slot], gt.names[slot] = gt.e.Outcome(*c.after), c.after.Name
		gt.tally.Add(gt.results[slot], 1)
	}
}

// baseline lists the organization's policies (the command's one list) and
// decides the provider's user on each policy management type, once it
// succeeds.
func (g *lockoutGuard) baseline(ctx context.Context) (*guardBase, error) {
	return g.base.get(ctx, func(ctx context.Context) (*guardBase, error) {
		who, err := g.pd.client.Identity(ctx)
		if err != nil {
			return nil, err
		}
		list, err := cachedPolicies(ctx, g.pd)
		if err != nil {
			return nil, err
		}
		b := &guardBase{who: who, byID: make(map[string]int, len(list.all))}
		for i := range list.all {
			b.byID[list.all[i].PolicyID] = i
		}
		now := time.Now()
		for _, typ := range policyManagementTypes {
			gt := &guardType{req: guardRequest(who, g.pd.client.PublicKey(), typ, now, nil)}
			gt.e = policyset.NewEvaluator(gt.req)
			gt.baseNames, gt.baseResults = make([]string, len(list.all)), make([]policyset.Result, len(list.all))
			for i := range list.all {
				gt.baseNames[i], gt.baseResults[i] = list.all[i].PolicyName, gt.e.Outcome(policyset.FromClient(&list.all[i]))
				gt.baseTally.Add(gt.baseResults[i], 1)
			}
			gt.names, gt.results, gt.tally = slices.Clone(gt.baseNames), slices.Clone(gt.baseResults), gt.baseTally
			b.types = append(b.types, gt)
		}
		return b, nil
	})
}

// guardRequest is the provider's user alone asking for typ: whoami gives
// no tags, email or alias, so the user is decided without them.
func guardRequest(who *client.WhoamiResponse, publicKey, typ string, now time.Time, q *client.Quorum) policyset.Request {
	req := policyset.Request{Type: typ, Now: now, Approvers: []policyset.User{{ID: who.UserID}},
		Credentials: []policyset.Credential{{UserID: who.UserID, Type: "CREDENTIAL_TYPE_API_KEY_P256", PublicKey: publicKey}}}
	if q != nil {
		req.RootQuorum = policyset.RootQuorum{UserIDs: q.UserIDs, Threshold: q.Threshold}
	}
	return req
}

// rootQuorum reads the organization's root quorum, when a lockout is about
// to be reported; nil when it cannot be read, and then the next report
// reads it again.
func (g *lockoutGuard) rootQuorum(ctx context.Context) *client.Quorum {
	q, err := g.quorum.get(ctx, func(ctx context.Context) (*client.Quorum, error) {
		got, err := g.pd.client.GetOrganizationConfigs(ctx, client.GetOrganizationConfigsRequest{})
		if err != nil {
			return nil, err
		}
		return got.Configs.Quorum, nil
	})
	if err != nil {
		tflog.Warn(ctx, "lockout guard: could not read the root quorum; judging by policies alone", map[string]any{"error": err.Error()})
	}
	return q
}

// lockoutFinding is one activity type the changes take from the user.
type lockoutFinding struct {
	gt            *guardType
	before, after policyset.Decision // named in full by describe
	waitsOnly     bool               // after, the user's changes wait for approvals: not a lockout, worth a warning
}

// judge decides the user on each type, before the command, before the
// change being checked (prev) and after it, and returns what the change
// takes away that the changes before it had not already. With q, the
// requests carry the root quorum. g.mu is held.
func (g *lockoutGuard) judge(b *guardBase, q *client.Quorum, prev []policyset.Tally) []lockoutFinding {
	var found []lockoutFinding
	for t, gt := range b.types {
		req := gt.req
		if q != nil {
			req = guardRequest(b.who, g.pd.client.PublicKey(), req.Type, req.Now, q)
		}
		before := policyset.DecideTally(gt.baseTally, req)
		lockedNow, waitsNow := takenAway(before, policyset.DecideTally(gt.tally, req))
		lockedPrev, waitsPrev := takenAway(before, policyset.DecideTally(prev[t], req))
		if (lockedNow && !lockedPrev) || (waitsNow && !waitsPrev) {
			found = append(found, lockoutFinding{gt: gt, before: policyset.DecideResults(gt.baseResults, req),
				after: policyset.DecideResults(gt.results, req), waitsOnly: waitsNow})
		}
	}
	return found
}

// takenAway says whether after takes the user's policy changes away
// (locked), or only makes them wait for approvals (waits), when a policy
// allowed them before. A user no policy allowed (a root user acting
// through the root quorum, say) loses nothing a policy change can take.
func takenAway(before, after policyset.Decision) (locked, waits bool) {
	if before.ByRootQuorum || (before.Outcome != client.OutcomeAllow && before.Outcome != client.OutcomeRequiresConsensus) {
		return false, false
	}
	switch {
	case after.Outcome == client.OutcomeDenyExplicit || after.Outcome == client.OutcomeDenyImplicit:
		return true, false
	case before.Outcome == client.OutcomeAllow && after.Outcome == client.OutcomeRequiresConsensus && !after.ByRootQuorum:
		return false, true
	}
	return false, false
}

// firstSuccess is a shared first read that is kept once it succeeds. A
// failure is not kept: it goes to the caller whose read failed (its
// context canceled, say), and the next caller reads again, as cachedList
// does. Callers wait for a read in progress, each as long as its own
// context lets it.
type firstSuccess[T any] struct {
	turn chan struct{} // one slot: whoever holds it reads
	mu   sync.Mutex    // guards done and v, for loaded
	done bool
	v    T
}

func newFirstSuccess[T any]() firstSuccess[T] {
	return firstSuccess[T]{turn: make(chan struct{}, 1)}
}

// get returns the value read first, reading it with read if no read has
// succeeded yet.
func (f *firstSuccess[T]) get(ctx context.Context, read func(context.Context) (T, error)) (T, error) {
	if v, ok := f.loaded(); ok {
		return v, nil
	}
	select {
	case f.turn <- struct{}{}:
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
	defer func() { <-f.turn }()
	if v, ok := f.loaded(); ok {
		return v, nil
	}
	v, err := read(ctx)
	if err != nil {
		return v, err
	}
	f.mu.Lock()
	f.v, f.done = v, true
	f.mu.Unlock()
	return v, nil
}

// loaded is the value, once a read has succeeded.
func (f *firstSuccess[T]) loaded() (T, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.v, f.done
}
