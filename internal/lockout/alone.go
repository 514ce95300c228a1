package lockout

import (
	"context"
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Batching saves approvals: a batch of twenty creates that needs approval
// asks for one, where twenty creates alone ask for twenty. Where the
// provider's user may make a change without approval, a batch saves none,
// and each wave waits for its one answer while Terraform's next wave could
// have started. So an operation goes alone when the guard is sure that it
// needs no approval: the engine decides the user acting alone, in the
// worst state the guard has counted (every counted change in the version
// that allows the user least; guard.go), to allow it
// (client.OutcomeAllow), with the root quorum in the request when no
// policy allows it (a root user under a quorum of one is allowed; under a
// larger one the activity waits for the others).
//
// Sure must stay true until the operation is answered: the changes of the
// apply that can take it away are counted before they are submitted (a
// create or update when Terraform plans it again, a delete before it is
// sent), but may be counted while an operation the guard let go alone is
// on its way. So a counted change that takes the allow away waits until
// every operation sent alone has been answered (awaitAlone), and from then
// on operations are batched. Nothing waits unless a change of the command
// makes the user's policy changes need approval.

// BatchTypes are the ManagedTypes that go in batches: the ones an
// operation may go alone on.
var BatchTypes = []string{client.OpCreatePolicies.Type, client.OpDeletePolicies.Type}

// HoldAlone says whether an operation of activity type typ needs no
// approval, and then counts it as sent alone until sent is called.
func (g *Guard) HoldAlone(ctx context.Context, typ string) (sent func(), alone bool) {
	if !slices.Contains(BatchTypes, typ) {
		return nil, false
	}
	base, loaded := g.base.Loaded()
	if !loaded {
		// The check of this change could not read the organization: not
		// sure.
		return nil, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.allowsAlone(ctx, base, typ) {
		return nil, false
	}
	if g.alone == 0 {
		g.aloneAnswered = make(chan struct{})
	}
	g.alone++
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.alone--; g.alone == 0 {
			close(g.aloneAnswered)
		}
	}, true
}

// allowsAlone says whether the user acting alone is allowed typ, one of
// the ManagedTypes, in the worst state. g.mu is held.
func (g *Guard) allowsAlone(ctx context.Context, b *guardBase, typ string) bool {
	gt := b.types[slices.Index(ManagedTypes[:], typ)]
	if policyset.DecideTally(gt.worstTally, gt.req).Verdict == client.OutcomeAllow {
		return true
	}
	// The root quorum can only allow more: a policy that allows does so
	// whatever it is, so it is read only when none does.
	q := g.rootQuorum(ctx)
	if q == nil || !slices.Contains(q.UserIDs, b.who.UserID) {
		return false
	}
	req := guardRequest(b.who, g.r.PublicKey(), typ, gt.req.Now, q)
	return policyset.DecideTally(gt.worstTally, req).Verdict == client.OutcomeAllow
}

// aloneToAwait is what a change just counted must wait for before it is
// submitted: the operations sent alone, when it takes away the allow they
// were sent on; nil when there is nothing to wait for. g.mu is held.
func (g *Guard) aloneToAwait(ctx context.Context, b *guardBase) <-chan struct{} {
	if g.alone == 0 {
		return nil
	}
	for _, typ := range BatchTypes {
		if !g.allowsAlone(ctx, b, typ) {
			return g.aloneAnswered
		}
	}
	return nil
}

// awaitAlone waits for answered (aloneToAwait's), or for ctx to end.
func awaitAlone(ctx context.Context, answered <-chan struct{}) {
	if answered == nil {
		return
	}
	select {
	case <-answered:
	case <-ctx.Done():
	}
}
