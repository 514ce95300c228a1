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
var policyManagementTypes = []string{client.OpCreatePolicies.Type, client.OpUpdatePolicy.Type, client.OpDeletePolicy.Type}

// lockoutGuard holds, for one walk of one command (the providerData's
// life), the policies before the command and every change planned since.
type lockoutGuard struct {
	pd   *providerData
	skip bool // skip_policy_lockout_check: warn instead of failing

	baseOnce sync.Once
	base     *guardBase
	baseErr  error

	quorumOnce sync.Once
	quorum     *client.Quorum // nil when unread or unknown

	mu      sync.Mutex // guards changes and the evaluators of base
	changes []plannedPolicyChange
}

// plannedPolicyChange is one planned change of a custody_policy.
type plannedPolicyChange struct {
	id      string            // the policy's id; "" for a create
	after   *policyset.Policy // nil for a delete
	unknown bool              // the planned content is not known until apply
	what    string            // "creating policy \"x\"", for messages
}

// guardBase is the organization as the command found it, decided once.
type guardBase struct {
	who      *client.WhoamiResponse
	policies []policyset.Policy
	byID     map[string]int
	// per activity type (policyManagementTypes), the request, an evaluator
	// of it, every base policy's outcome, and the decision
	requests   []policyset.Request
	evaluators []*policyset.Evaluator
	results    [][]policyset.Result
	before     []policyset.Decision
}

// newLockoutGuard is the guard of a provider whose credentials check runs:
// without whoami it cannot know whom to decide for.
func newLockoutGuard(pd *providerData, skip bool) *lockoutGuard {
	return &lockoutGuard{pd: pd, skip: skip}
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
	if i := slices.IndexFunc(g.changes, func(c plannedPolicyChange) bool { return c.unknown }); i >= 0 {
		tflog.Debug(ctx, "lockout guard: a planned policy change is not known until apply; the apply checks it", map[string]any{"change": g.changes[i].what})
		return
	}
	found := g.judge(base, nil, g.changes)
	if len(found) == 0 {
		return
	}
	var q *client.Quorum
	if rq := g.rootQuorum(ctx); rq != nil && slices.Contains(rq.UserIDs, base.who.UserID) {
		// A root user may act through the root quorum: decide again with it.
		q = rq
		found = g.judge(base, q, g.changes)
	}
	// Report only what this change adds: an earlier change that already
	// locked Terraform out carries its own error.
	last := len(g.changes) - 1
	already := g.judge(base, q, g.changes[:last])
	found = slices.DeleteFunc(found, func(f lockoutFinding) bool {
		return slices.ContainsFunc(already, func(a lockoutFinding) bool { return a.typ == f.typ && a.waitsOnly == f.waitsOnly })
	})
	g.reportLockout(base, last, found, diags)
}

// baseline lists the organization's policies (the command's one list) and
// decides the provider's user on each policy management type, once.
func (g *lockoutGuard) baseline(ctx context.Context) (*guardBase, error) {
	g.baseOnce.Do(func() {
		who, err := g.pd.client.Identity(ctx)
		if err != nil {
			g.baseErr = err
			return
		}
		list, err := cachedPolicies(ctx, g.pd)
		if err != nil {
			g.baseErr = err
			return
		}
		b := &guardBase{who: who, byID: make(map[string]int, len(list.all))}
		for i := range list.all {
			b.policies = append(b.policies, policyset.FromClient(&list.all[i]))
			b.byID[list.all[i].PolicyID] = i
		}
		now := time.Now()
		for _, typ := range policyManagementTypes {
			req := guardRequest(who, g.pd.client.PublicKey(), typ, now, nil)
			e := policyset.NewEvaluator(req)
			results := make([]policyset.Result, len(b.policies))
			for i, p := range b.policies {
				results[i] = e.Outcome(p)
			}
			b.requests, b.evaluators = append(b.requests, req), append(b.evaluators, e)
			b.results, b.before = append(b.results, results), append(b.before, policyset.DecideResults(results, req))
		}
		g.base = b
	})
	return g.base, g.baseErr
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

// rootQuorum reads the organization's root quorum once, when a lockout is
// about to be reported; nil when it cannot be read.
func (g *lockoutGuard) rootQuorum(ctx context.Context) *client.Quorum {
	g.quorumOnce.Do(func() {
		got, err := g.pd.client.GetOrganizationConfigs(ctx, client.GetOrganizationConfigsRequest{})
		if err != nil {
			tflog.Warn(ctx, "lockout guard: could not read the root quorum; judging by policies alone", map[string]any{"error": err.Error()})
			return
		}
		g.quorum = got.Configs.Quorum
	})
	return g.quorum
}

// lockoutFinding is one activity type the changes take from the user.
type lockoutFinding struct {
	typ           string
	before, after policyset.Decision
	beforeNames   []string // the names of the policies, in the order the decisions index
	afterNames    []string
	waitsOnly     bool // after, the user's changes wait for approvals: not a lockout, worth a warning
}

// judge decides the user on each type with changes applied, and returns
// what they take away. With q, the requests carry the root quorum (the
// base decisions are made again with it). g.mu is held.
func (g *lockoutGuard) judge(b *guardBase, q *client.Quorum, changes []plannedPolicyChange) []lockoutFinding {
	var found []lockoutFinding
	for t, typ := range policyManagementTypes {
		req, e, baseResults := b.requests[t], b.evaluators[t], b.results[t]
		if q != nil {
			req = guardRequest(b.who, g.pd.client.PublicKey(), typ, req.Now, q)
		}
		before := policyset.DecideResults(baseResults, req)
		names, results := after(b, e, baseResults, changes)
		after := policyset.DecideResults(results, req)
		f := lockoutFinding{typ: typ, before: before, after: after, beforeNames: policyNames(b.policies), afterNames: names}
		switch {
		case !allowedByPolicy(before):
			// Never allowed by policy (a root user acting through the root
			// quorum, say): nothing a policy change takes away.
		case after.Outcome == client.OutcomeDenyExplicit || after.Outcome == client.OutcomeDenyImplicit:
			found = append(found, f)
		case before.Outcome == client.OutcomeAllow && after.Outcome == client.OutcomeRequiresConsensus && !after.ByRootQuorum:
			f.waitsOnly = true
			found = append(found, f)
		}
	}
	return found
}

// after is the policy set once changes are made: the names of its policies
// and their outcomes. Base policies keep the outcome already found; only
// changed ones are evaluated.
func after(b *guardBase, e *policyset.Evaluator, baseResults []policyset.Result, changes []plannedPolicyChange) ([]string, []policyset.Result) {
	gone := map[int]bool{}
	var names []string
	var added []policyset.Result
	for _, c := range changes {
		if i, ok := b.byID[c.id]; ok && c.id != "" {
			gone[i] = true
		}
		if c.after != nil {
			names = append(names, c.after.Name)
			added = append(added, e.Outcome(*c.after))
		}
	}
	outNames := make([]string, 0, len(b.policies)+len(names))
	results := make([]policyset.Result, 0, len(b.policies)+len(added))
	for i, p := range b.policies {
		if !gone[i] {
			outNames, results = append(outNames, p.Name), append(results, baseResults[i])
		}
	}
	return append(outNames, names...), append(results, added...)
}

// allowedByPolicy: a policy allows the user, at once or with approvals.
func allowedByPolicy(d policyset.Decision) bool {
	return !d.ByRootQuorum && (d.Outcome == client.OutcomeAllow || d.Outcome == client.OutcomeRequiresConsensus)
}

func policyNames(ps []policyset.Policy) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}
