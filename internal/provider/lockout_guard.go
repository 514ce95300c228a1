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
// Terraform plans resources in parallel and applies independent ones in
// any order, and an apply that fails stops part way, where the next run
// starts. So the guard judges every state an apply of the planned changes
// can pass through or stop in, not the order it happens to see: on each
// activity type that manages policies, it decides the provider's own user
// (whoami, from the credentials check), acting alone, with the
// organization's policies as the command found them and each changed
// policy in whichever of its versions (before or after the change; a
// create's before and a delete's after are absent) allows the user less
// on that type, in the engine's order: explicit deny < not applicable,
// time-inactive, error or absent < consensus < allow. That worst state
// allows no more than the state in which any one change is submitted
// (every other change in either version, that one in its before version),
// nor than the state after the apply, for the runs after it. Judging only
// those would not do: the state after the changes planned so far can lock
// Terraform out and a change planned later put it right, and the verdict
// would depend on the order again. The worst state only gets worse as
// changes arrive, so the verdict is the same in every plan (it is the
// least strict judgment for which that holds); which resource carries the
// error is the one whose change tips it, and may vary. A refused change
// is not counted, so that it does not count against the others.
//
// A planned change whose content is not known until apply is named in a
// warning and left out (counted in its before version): Terraform plans
// it again during the apply, with its values, and the guard of the apply
// judges it then, before it is submitted.
//
// Deletes are the one change the plan may not see: a replacement (a
// `-replace`, a tainted object, an unresolved-create placeholder) reaches
// ModifyPlan only as its create, and the apply runs it as a delete and
// then that create. So the apply's guard counts, in the same worst way,
// every change the apply starts: a create or an update when Terraform
// plans it again just before making it (check), a delete just before it
// is submitted or joins a batch (allowDelete, which refuses it when it
// would lock Terraform out). A change counts in its worse version until it
// is made (applied), in its after version from then on; one that failed
// keeps counting in its worse version, since it may have been made. Two
// deletes that run at once are judged together, whichever comes second
// with the first counted as deleted. Every change of a plan that passed
// with its content known was judged in both its versions, so the apply
// refuses only what the plan could not see (a replacement's delete, a
// change of the organization since the plan).
//
// The guard reuses the command's one list_policies (cachedPolicies), and
// asks get_organization_configs only when it is about to report, to learn
// whether the user is a root user who acts through the root quorum.

// policyManagementTypes are the activities the provider manages policies
// with. An array, so that typeOutcomes can hold one outcome per type.
var policyManagementTypes = [...]string{client.OpCreatePolicies.Type, client.OpUpdatePolicy.Type, client.OpDeletePolicy.Type,
	client.OpDeletePolicies.Type}

// typeOutcomes is one policy version's outcome on each of the
// policyManagementTypes; the zero value is an absent policy.
type typeOutcomes [len(policyManagementTypes)]policyset.PolicyOutcome

// lockoutGuard holds, for one walk of one command (the providerData's
// life), the policies before the command and every change counted since.
type lockoutGuard struct {
	pd   *providerData
	skip bool // skip_policy_lockout_check: warn instead of failing

	// The first reads: kept once they succeed, read again by the next
	// caller after a failure (another caller's context canceled included).
	base   firstSuccess[*guardBase]
	quorum firstSuccess[*client.Quorum]

	mu sync.Mutex // guards the changes, slots and tallies of base, and alone

	// alone counts the operations sent alone that are not answered yet,
	// and aloneAnswered is closed when none is left (lockout_guard_alone.go).
	alone         int
	aloneAnswered chan struct{}
}

// plannedPolicyChange is one planned change of a custody_policy.
type plannedPolicyChange struct {
	id      string            // the policy's id; "" for a create
	after   *policyset.Policy // nil for a delete
	unknown bool              // the planned content is not known until apply
	what    string            // "creating policy \"x\"", for messages
}

// guardChange is a change the guard counts.
type guardChange struct {
	plannedPolicyChange
	slot     int
	outcomes typeOutcomes // its after version's; absent for a delete
	done     bool         // made (at apply): the slot holds its after version now
}

// changeKey finds the counted change that a Create, Update or Delete of
// the apply has made.
type changeKey struct {
	id       string
	hasAfter bool
	after    policyset.Policy
}

func keyOf(c plannedPolicyChange) changeKey {
	k := changeKey{id: c.id, hasAfter: c.after != nil}
	if c.after != nil {
		k.after = *c.after
	}
	return k
}

// guardBase is the organization as the command found it, the changes
// counted since, and the user's standing on each policy management type.
type guardBase struct {
	who   *client.WhoamiResponse
	byID  map[string]int // policy id → slot
	slots []guardSlot    // the organization's policies, then one per create
	// pending indexes the changes not made yet, for applied; built at the
	// first, so that a plan, which makes nothing, never pays for it.
	pending map[changeKey][]*guardChange
	types   [len(policyManagementTypes)]*guardType
}

// guardSlot is one policy: the organization's, or a planned create's.
type guardSlot struct {
	changes []*guardChange // counted on it, in order
	made    *guardChange   // the last of them made, whose version it holds now; nil: the organization's
}

// guardType is the user's standing on one activity type. A plan of N
// policy changes checks N times, so each check updates tallies of the
// outcomes in place (policyset.Tally) instead of deciding N policies
// again; the policies are named only in a report.
type guardType struct {
	req policyset.Request
	e   *policyset.Evaluator
	// the organization's policies before the command: names and outcomes
	baseNames    []string
	baseOutcomes []policyset.PolicyOutcome
	baseTally    policyset.Tally
	// per slot, the worst state (the version of the slot that allows the
	// user least on this type; worstBy is the change whose after version
	// it is, nil for the slot's current one) and the final state (every
	// change made)
	worst      []policyset.PolicyOutcome
	worstBy    []*guardChange
	worstTally policyset.Tally
	final      []policyset.PolicyOutcome
	finalTally policyset.Tally
}

// newLockoutGuard is the guard of a provider whose credentials check runs:
// without whoami it cannot know whom to decide for.
func newLockoutGuard(pd *providerData, skip bool) *lockoutGuard {
	return &lockoutGuard{pd: pd, skip: skip, base: newFirstSuccess[*guardBase](), quorum: newFirstSuccess[*client.Quorum]()}
}

// check counts a planned change and reports, on the resource being
// planned, a lockout that the changes counted so far can cause in some
// order; a change it refuses is not counted. Terraform plans each change
// again during the apply, with its values known, and the apply's guard
// checks it then.
func (g *lockoutGuard) check(ctx context.Context, c plannedPolicyChange, diags *diag.Diagnostics) {
	g.countAndJudge(ctx, c, false, diags)
}

// allowDelete is the check of a delete at apply, before it is submitted
// (or joins a batch): false when it would lock Terraform out, reported in
// diags. A delete it lets go stays counted, as made, for the deletes and
// changes after it; a refused one is not counted.
func (g *lockoutGuard) allowDelete(ctx context.Context, id, what string, diags *diag.Diagnostics) bool {
	return g.countAndJudge(ctx, plannedPolicyChange{id: id, what: what}, true, diags)
}

// countAndJudge is check and allowDelete (atApply): it counts c and judges
// the changes counted so far, and returns false when c would lock Terraform
// out and is refused, reported in diags and not counted. A change it
// counts that takes away the allow of operations sent alone waits, before
// it returns, until they are answered (lockout_guard_alone.go).
func (g *lockoutGuard) countAndJudge(ctx context.Context, c plannedPolicyChange, atApply bool, diags *diag.Diagnostics) bool {
	base, err := g.baseline(ctx)
	if err != nil {
		// It never blocks what it cannot judge.
		diags.AddWarning("Policy lockout check not made", "The provider could not read what it needs to check that "+c.what+
			" leaves Terraform able to change policies: "+err.Error())
		return true
	}
	if c.unknown {
		tflog.Debug(ctx, "lockout guard: a planned policy change is not known until apply; the apply checks it", map[string]any{"change": c.what})
		diags.AddWarning("Policy lockout check left to apply", unknownChangeText(c))
		return true
	}
	var answered <-chan struct{}
	defer func() { awaitAlone(ctx, answered) }() // once g.mu is unlocked
	g.mu.Lock()
	defer g.mu.Unlock()
	prev := base.worstTallies()
	gc, ok := base.count(c)
	if !ok {
		return true // a delete of a policy the organization did not hold when the command began
	}
	if found := g.judge(ctx, base, prev); len(found) > 0 {
		g.reportLockout(base, gc, found, atApply, diags)
		if !g.skip && locks(found) {
			// A refused change is not made (at apply, Terraform goes on
			// with the others): it must not count against them.
			base.uncount(gc)
			return false
		}
	}
	answered = g.aloneToAwait(ctx, base)
	return true
}

// locks says whether the findings hold a lockout, not only a need for
// consensus.
func locks(found []lockoutFinding) bool {
	return slices.ContainsFunc(found, func(f lockoutFinding) bool { return !f.consensusOnly })
}

// applied tells the guard that the apply made c: from now on its slot
// holds c's after version, whatever order the rest of the apply takes.
func (g *lockoutGuard) applied(c plannedPolicyChange) {
	base, ok := g.base.loaded()
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if base.pending == nil {
		base.pending = map[changeKey][]*guardChange{}
		for _, slot := range base.slots {
			for _, gc := range slot.changes {
				if !gc.done {
					base.index(gc)
				}
			}
		}
	}
	k := keyOf(c)
	waiting := base.pending[k]
	if len(waiting) == 0 {
		return // not counted: its check was not made, or nothing it changes is decided
	}
	gc := waiting[0]
	if len(waiting) == 1 {
		delete(base.pending, k)
	} else {
		base.pending[k] = waiting[1:]
	}
	gc.done = true
	base.slots[gc.slot].made = gc
	base.settle(gc.slot)
}

// worstTallies copies the tallies of the worst state.
func (b *guardBase) worstTallies() (t [len(policyManagementTypes)]policyset.Tally) {
	for i, gt := range b.types {
		t[i] = gt.worstTally
	}
	return t
}

// count adds change c to the slot of its policy (a new one for a create);
// false when it changes nothing the guard counts (the delete of a policy
// the organization does not hold). g.mu is held.
func (b *guardBase) count(c plannedPolicyChange) (*guardChange, bool) {
	slot, ok := b.byID[c.id]
	if !ok || c.id == "" {
		if c.after == nil {
			return nil, false
		}
		slot = len(b.slots)
		b.slots = append(b.slots, guardSlot{})
		for _, gt := range b.types {
			gt.worst, gt.worstBy, gt.final = append(gt.worst, policyset.PolicyOutcome{}), append(gt.worstBy, nil), append(gt.final, policyset.PolicyOutcome{})
		}
	}
	gc := &guardChange{plannedPolicyChange: c, slot: slot}
	if c.after != nil {
		for t, gt := range b.types {
			gc.outcomes[t] = gt.e.Outcome(*c.after)
		}
	}
	b.slots[slot].changes = append(b.slots[slot].changes, gc)
	if b.pending != nil {
		b.index(gc)
	}
	b.settle(slot)
	return gc, true
}

// index adds gc to pending. g.mu is held.
func (b *guardBase) index(gc *guardChange) {
	k := keyOf(gc.plannedPolicyChange)
	b.pending[k] = append(b.pending[k], gc)
}

// uncount takes back gc, the change counted last. g.mu is held.
func (b *guardBase) uncount(gc *guardChange) {
	s := &b.slots[gc.slot]
	s.changes = slices.DeleteFunc(s.changes, func(o *guardChange) bool { return o == gc })
	if b.pending != nil {
		k := keyOf(gc.plannedPolicyChange)
		if b.pending[k] = slices.DeleteFunc(b.pending[k], func(o *guardChange) bool { return o == gc }); len(b.pending[k]) == 0 {
			delete(b.pending, k)
		}
	}
	b.settle(gc.slot)
}

// settle recounts slot s on every type: its worst version is the least
// permissive of the version it holds now and the after versions of the
// changes not made yet; its final version is the last change's. The cost
// is the number of changes of one policy, not of the plan. g.mu is held.
func (b *guardBase) settle(s int) {
	slot := b.slots[s]
	for t, gt := range b.types {
		var now policyset.PolicyOutcome
		if s < len(gt.baseOutcomes) {
			now = gt.baseOutcomes[s]
		}
		if slot.made != nil {
			now = slot.made.outcomes[t]
		}
		worst, by, final := now, slot.made, now
		for _, c := range slot.changes {
			final = c.outcomes[t]
			if !c.done && permissiveness(c.outcomes[t]) < permissiveness(worst) {
				worst, by = c.outcomes[t], c
			}
		}
		gt.worstTally.Add(gt.worst[s], -1)
		gt.worstTally.Add(worst, 1)
		gt.finalTally.Add(gt.final[s], -1)
		gt.finalTally.Add(final, 1)
		gt.worst[s], gt.worstBy[s], gt.final[s] = worst, by, final
	}
}

// permissiveness orders outcomes as the engine lets them decide: an
// explicit deny allows the user least, then an outcome that counts for
// nothing (not applicable, time-inactive, an error, an absent policy),
// then a consensus, then an allow. The decision of a set never allows
// more when one policy's outcome moves down this order.
func permissiveness(r policyset.PolicyOutcome) int {
	switch r.Outcome {
	case client.OutcomeDenyExplicit:
		return 0
	case client.OutcomeRequiresConsensus:
		return 2
	case client.OutcomeAllow:
		return 3
	}
	return 1
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
		n := len(list.all)
		b := &guardBase{who: who, byID: make(map[string]int, n), slots: make([]guardSlot, n)}
		for i := range list.all {
			b.byID[list.all[i].PolicyID] = i
		}
		now := time.Now()
		for t, typ := range policyManagementTypes {
			gt := &guardType{req: guardRequest(who, g.pd.client.PublicKey(), typ, now, nil)}
			gt.e = policyset.NewEvaluator(gt.req)
			gt.baseNames, gt.baseOutcomes = make([]string, n), make([]policyset.PolicyOutcome, n)
			for i := range list.all {
				gt.baseNames[i], gt.baseOutcomes[i] = list.all[i].PolicyName, gt.e.Outcome(policyset.FromClient(&list.all[i]))
				gt.baseTally.Add(gt.baseOutcomes[i], 1)
			}
			gt.worst, gt.worstBy, gt.final = slices.Clone(gt.baseOutcomes), make([]*guardChange, n), slices.Clone(gt.baseOutcomes)
			gt.worstTally, gt.finalTally = gt.baseTally, gt.baseTally
			b.types[t] = gt
		}
		return b, nil
	})
}

// guardRequest is the provider's user alone asking for typ: whoami gives
// no tags, email or alias, so the user is decided without them.
func guardRequest(who *client.WhoamiResponse, publicKey, typ string, now time.Time, q *client.Quorum) policyset.Request {
	req := policyset.Request{Type: typ, Now: now, Approvers: []policyset.User{{ID: who.UserID}},
		Credentials: []policyset.Credential{{UserID: who.UserID, Type: client.CredentialTypeAPIKeyP256, PublicKey: publicKey}}}
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

// lockoutFinding is one activity type that some order of the changes
// takes from the user.
type lockoutFinding struct {
	t             int
	gt            *guardType
	before, after policyset.Decision // before the command, in the worst state; named in full by describeDecision
	afterNames    []string           // the names of the policies of after, by slot
	consensusOnly bool               // after, the user's changes need consensus: not a lockout, worth a warning
	finalLocked   bool               // the state once every counted change is made locks out too
}

// judge decides the user on each type, before the command, in the worst
// state before the change just counted (prev) and in the worst state now,
// and returns what the change takes away that the changes before it had
// not already. A root user is decided again with the root quorum, which
// may let it act alone. g.mu is held.
func (g *lockoutGuard) judge(ctx context.Context, b *guardBase, prev [len(policyManagementTypes)]policyset.Tally) []lockoutFinding {
	found := g.judgeWith(b, nil, prev)
	if len(found) > 0 {
		if rq := g.rootQuorum(ctx); rq != nil && slices.Contains(rq.UserIDs, b.who.UserID) {
			found = g.judgeWith(b, rq, prev)
		}
	}
	return found
}

// judgeWith is judge with the root quorum q in the requests, or none.
func (g *lockoutGuard) judgeWith(b *guardBase, q *client.Quorum, prev [len(policyManagementTypes)]policyset.Tally) []lockoutFinding {
	var found []lockoutFinding
	for t, gt := range b.types {
		req := gt.req
		if q != nil {
			req = guardRequest(b.who, g.pd.client.PublicKey(), req.Type, req.Now, q)
		}
		before := policyset.DecideTally(gt.baseTally, req)
		lockedNow, consensusNow := takenAway(before, policyset.DecideTally(gt.worstTally, req))
		lockedPrev, consensusPrev := takenAway(before, policyset.DecideTally(prev[t], req))
		if (lockedNow && !lockedPrev) || (consensusNow && !consensusPrev) {
			finalLocked, _ := takenAway(before, policyset.DecideTally(gt.finalTally, req))
			f := lockoutFinding{t: t, gt: gt, before: policyset.DecideOutcomes(gt.baseOutcomes, req),
				after: policyset.DecideOutcomes(gt.worst, req), consensusOnly: consensusNow, finalLocked: finalLocked}
			f.afterNames = b.worstNames(t)
			found = append(found, f)
		}
	}
	return found
}

// worstNames names each slot's version in the worst state on type t.
func (b *guardBase) worstNames(t int) []string {
	gt := b.types[t]
	names := make([]string, len(gt.worst))
	for s := range names {
		switch by := gt.worstBy[s]; {
		case by != nil && by.after != nil:
			names[s] = by.after.Name
		case s < len(gt.baseNames):
			names[s] = gt.baseNames[s]
		}
	}
	return names
}

// takenAway says whether after takes the user's policy changes away
// (locked), or only makes them require consensus (consensus), when a policy
// allowed them before. A user no policy allowed (a root user acting
// through the root quorum, say) loses nothing a policy change can take.
func takenAway(before, after policyset.Decision) (locked, consensus bool) {
	if before.ByRootQuorum || (before.Verdict != client.OutcomeAllow && before.Verdict != client.OutcomeRequiresConsensus) {
		return false, false
	}
	switch {
	case after.Verdict == client.OutcomeDenyExplicit || after.Verdict == client.OutcomeDenyImplicit:
		return true, false
	case before.Verdict == client.OutcomeAllow && after.Verdict == client.OutcomeRequiresConsensus && !after.ByRootQuorum:
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
