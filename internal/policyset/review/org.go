package review

import (
	"slices"
	"strings"
	"sync"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// Org is an organization's policies as one command found them (managed
// and unmanaged; Policy.ID names each), the root users' ids (no requester
// or approver is one), and the changes counted so far for the controls.
// Safe for concurrent use.
type Org struct {
	mu       sync.Mutex
	policies []policyset.Policy
	rootIDs  []string
	byID     map[string]int
	// index is the policies by the types each can apply to, built when
	// first needed (typeIndex).
	index map[string][]policyset.Policy
	// guardIndex and counted are, by type, the organization's policies and
	// the changes counted so far, indexed by guards (org_index.go).
	guardIndex map[string]*symbolic.GuardIndex
	counted    map[string]*countedIndex
	// all is every policy indexed by guards, and byDecision their
	// positions by decision fields (DecisionKey): the findings' questions.
	all        *symbolic.GuardIndex
	byDecision map[string][]int
	// witnesses are a report's witnesses, kept for the findings on the
	// same change (changeKey).
	witnesses map[string][]policyset.Request
	// allows are, by change (changeKey), what its report found newly
	// allowed, by type (newlyAllowed).
	allows map[string]map[string]newlyAllowed
	// orgNamesUsers: some policy of the organization names users by id
	// (NamesUsers), once known.
	orgNamesUsers *bool
	keys          map[string]bool            // counted changes, by version keys
	planned       []symbolic.Counted         // the counted changes, in the order counted (JudgeOrganization)
	reported      map[string]bool            // breaches returned, by control, type and kind
	already       map[string]symbolic.Breach // alreadyBroken's answers, by type and approvers
	// budget bounds the searches of every question the command asks
	// (budgets.go).
	budget *symbolic.Budget
}

// NewOrg holds the organization's policies and its root users' ids.
func NewOrg(policies []policyset.Policy, rootIDs []string) *Org {
	o := &Org{policies: policies, rootIDs: rootIDs, byID: map[string]int{}, keys: map[string]bool{}, reported: map[string]bool{},
		guardIndex: map[string]*symbolic.GuardIndex{}, counted: map[string]*countedIndex{},
		already: map[string]symbolic.Breach{}, witnesses: map[string][]policyset.Request{},
		allows: map[string]map[string]newlyAllowed{}, budget: symbolic.NewBudget(PlanBudget, "this plan", nil)}
	for i, p := range policies {
		o.byID[p.ID] = i
	}
	return o
}

// NamesUsers tells whether a policy version's consensus can name a user
// by id (an approver's id or a credential's user_id): only then can a
// root user's id matter to the review, since unnamed users are alike.
func NamesUsers(p *policyset.Policy) bool {
	return p != nil && (strings.Contains(p.Consensus, ".id") || strings.Contains(p.Consensus, "user_id"))
}

// NeedsRootIDs tells whether the review of c can depend on which users
// are root users, and they are not known yet.
func (o *Org) NeedsRootIDs(c Change) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.rootIDs != nil {
		return false
	}
	if NamesUsers(c.Before) || NamesUsers(c.After) {
		return true
	}
	if o.orgNamesUsers == nil {
		// Asked once per command: the organization's policies do not
		// change while it plans.
		names := slices.ContainsFunc(o.policies, func(p policyset.Policy) bool { return NamesUsers(&p) })
		o.orgNamesUsers = &names
	}
	return *o.orgNamesUsers
}

// SetRootIDs gives the root users' ids once they are read.
func (o *Org) SetRootIDs(ids []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if ids == nil {
		ids = []string{}
	}
	o.rootIDs = ids
}

// lookup is the organization's version of the policy a change's Before
// names, nil when the organization has none (a create).
func (o *Org) lookup(before *policyset.Policy) *policyset.Policy {
	if before == nil {
		return nil
	}
	if i, ok := o.byID[before.ID]; ok {
		return &o.policies[i]
	}
	return nil
}

// typeIndex is the organization's policies by type; o.mu is held.
func (o *Org) typeIndex() map[string][]policyset.Policy {
	if o.index == nil {
		o.index = byType(o.policies, symbolic.PolicyTypes)
	}
	return o.index
}

// typesOf lists the types any of the versions can apply to, in catalogue
// order.
func typesOf(ps ...*policyset.Policy) []string {
	want := map[string]bool{}
	for _, p := range ps {
		if p != nil {
			for _, t := range symbolic.MayApply(*p) {
				want[t] = true
			}
		}
	}
	var out []string
	for _, t := range symbolic.PolicyTypes {
		if want[t] {
			out = append(out, t)
		}
	}
	return out
}

// byType keeps, for each of types, the policies that can count for
// requests of it, reading each policy's types once.
func byType(ps []policyset.Policy, types []string) map[string][]policyset.Policy {
	out := make(map[string][]policyset.Policy, len(types))
	for _, t := range types {
		out[t] = nil
	}
	for _, p := range ps {
		for _, t := range symbolic.MayApply(p) {
			if list, wanted := out[t]; wanted {
				out[t] = append(list, p)
			}
		}
	}
	return out
}

// decisionEqual: the change moves no decision field (a rename, a notes
// change, a reorder).
func decisionEqual(c Change) bool {
	if c.Before == nil || c.After == nil {
		return c.Before == nil && c.After == nil
	}
	return sameDecision(*c.Before, *c.After)
}

func sameDecision(a, b policyset.Policy) bool {
	return a.Effect == b.Effect && a.Condition == b.Condition && a.Consensus == b.Consensus && a.Time == b.Time
}

// policyKey identifies a policy version by id and decision fields.
func policyKey(p *policyset.Policy) string {
	if p == nil {
		return ""
	}
	return p.ID + "\x00" + p.DecisionKey()
}

// name is how a report names a policy: its name, else its id.
func name(p policyset.Policy) string {
	if p.Name != "" {
		return p.Name
	}
	return p.ID
}
