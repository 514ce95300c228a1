package lockout

import (
	"context"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

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
func (g *Guard) rootQuorum(ctx context.Context) *client.Quorum {
	q, err := g.r.RootQuorum(ctx)
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
func (g *Guard) judge(ctx context.Context, b *guardBase, prev [len(ManagedTypes)]policyset.Tally) []lockoutFinding {
	found := g.judgeWith(b, nil, prev)
	if len(found) > 0 {
		if rq := g.rootQuorum(ctx); rq != nil && slices.Contains(rq.UserIDs, b.who.UserID) {
			found = g.judgeWith(b, rq, prev)
		}
	}
	return found
}

// judgeWith is judge with the root quorum q in the requests, or none.
func (g *Guard) judgeWith(b *guardBase, q *client.Quorum, prev [len(ManagedTypes)]policyset.Tally) []lockoutFinding {
	var found []lockoutFinding
	for t, gt := range b.types {
		req := gt.req
		if q != nil {
			req = guardRequest(b.who, g.r.PublicKey(), req.Type, req.Now, q)
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
		case by != nil && by.After != nil:
			names[s] = by.After.Name
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
