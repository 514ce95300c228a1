package lockout

import (
	"context"
	"slices"
	"sync"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/percommand"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Reader is what the guard reads of the organization. The provider's
// per-command data implements it, with the command's shared reads: one
// whoami, one list_policies, and get_organization_configs only when the
// guard is about to report (or to let a root user's operation go alone).
// A failed read is not kept: the next call reads again.
type Reader interface {
	// Identity is the provider's own user (whoami).
	Identity(ctx context.Context) (*client.WhoamiResponse, error)
	// Policies are the organization's policies as the command found them.
	Policies(ctx context.Context) ([]client.Policy, error)
	// RootQuorum is the organization's root quorum.
	RootQuorum(ctx context.Context) (*client.Quorum, error)
	// PublicKey is the provider's API key, whose credential a request carries.
	PublicKey() string
}

// Guard holds, for one walk of one command (the provider's per-command
// data's life), the policies before the command and every change counted
// since.
type Guard struct {
	r    Reader
	skip bool // skip_policy_lockout_check: warn instead of failing

	// The first read: kept once it succeeds, read again by the next
	// caller after a failure (another caller's context canceled included).
	base *percommand.FirstSuccess[*guardBase]

	mu sync.Mutex // guards the changes, slots and tallies of base, and alone

	// alone counts the operations sent alone that are not answered yet,
	// and aloneAnswered is closed when none is left (alone.go).
	alone         int
	aloneAnswered chan struct{}
}

// Change is one planned change of a custody_policy.
type Change struct {
	ID      string            // the policy's id; "" for a create
	After   *policyset.Policy // nil for a delete
	Unknown bool              // the planned content is not known until apply
	What    string            // "creating policy \"x\"", for messages
}

// New is the guard of a provider whose credentials check runs:
// without whoami it cannot know whom to decide for. skip is
// skip_policy_lockout_check: a lockout is then a warning.
func New(r Reader, skip bool) *Guard {
	return &Guard{r: r, skip: skip, base: percommand.NewFirstSuccess[*guardBase]()}
}

// Check counts a planned change and reports, on the resource being
// planned, a lockout that the changes counted so far can cause in some
// order; a change it refuses is not counted. Terraform plans each change
// again during the apply, with its values known, and the apply's guard
// checks it then.
func (g *Guard) Check(ctx context.Context, c Change) []Finding {
	_, found := g.countAndJudge(ctx, c, false)
	return found
}

// AllowDelete is the check of a delete at apply, before it is submitted
// (or joins a batch): false when it would lock Terraform out, reported in
// the findings. A delete it lets go stays counted, as made, for the
// deletes and changes after it; a refused one is not counted.
func (g *Guard) AllowDelete(ctx context.Context, id, what string) (bool, []Finding) {
	return g.countAndJudge(ctx, Change{ID: id, What: what}, true)
}

// countAndJudge is Check and AllowDelete (atApply): it counts c and judges
// the changes counted so far, and returns false when c would lock Terraform
// out and is refused, reported in the findings and not counted. A change it
// counts that takes away the allow of operations sent alone waits, before
// it returns, until they are answered (alone.go).
func (g *Guard) countAndJudge(ctx context.Context, c Change, atApply bool) (bool, []Finding) {
	base, err := g.baseline(ctx)
	if err != nil {
		// It never blocks what it cannot judge.
		return true, []Finding{{Warning, "Policy lockout check not made", "The provider could not read what it needs to check that " +
			c.What + " leaves Terraform able to change policies: " + err.Error()}}
	}
	if c.Unknown {
		tflog.Debug(ctx, "lockout guard: a planned policy change is not known until apply; the apply checks it", map[string]any{"change": c.What})
		return true, []Finding{{Warning, "Policy lockout check left to apply", unknownChangeText(c)}}
	}
	var answered <-chan struct{}
	defer func() { awaitAlone(ctx, answered) }() // once g.mu is unlocked
	g.mu.Lock()
	defer g.mu.Unlock()
	prev := base.worstTallies()
	gc, ok := base.count(c)
	if !ok {
		return true, nil // a delete of a policy the organization did not hold when the command began
	}
	var report []Finding
	if found := g.judge(ctx, base, prev); len(found) > 0 {
		report = g.reportLockout(base, gc, found, atApply)
		if !g.skip && locks(found) {
			// A refused change is not made (at apply, Terraform goes on
			// with the others): it must not count against them.
			base.uncount(gc)
			return false, report
		}
	}
	answered = g.aloneToAwait(ctx, base)
	return true, report
}

// locks says whether the findings hold a lockout, not only a need for
// consensus.
func locks(found []lockoutFinding) bool {
	return slices.ContainsFunc(found, func(f lockoutFinding) bool { return !f.consensusOnly })
}

// Applied tells the guard that the apply made c: from now on its slot
// holds c's after version, whatever order the rest of the apply takes.
func (g *Guard) Applied(c Change) {
	base, ok := g.base.Loaded()
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
