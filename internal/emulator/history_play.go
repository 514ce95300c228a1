package emulator

import (
	"bytes"
	"container/heap"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Playing a history's plans: each submit and vote, in time order, through
// the emulator's request path at its own moment.

// historyEvent is a submit (vote < 0) or the vote-th vote on a plan's
// activity, at a moment.
type historyEvent struct {
	at   time.Time
	seq  int // ties in time keep the order of scheduling
	plan int
	vote int
}

type historyQueue []historyEvent

func (q historyQueue) Len() int { return len(q) }
func (q historyQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q historyQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *historyQueue) Push(x any) {
	e, _ := x.(historyEvent)
	*q = append(*q, e)
}
func (q *historyQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// play runs the plans' submits, and the votes each one's fate calls for
// while its activity waits for consensus, in time order, each at a
// distinct millisecond before end.
func (r *historyRun) play(plans []historyPlan, end time.Time) error {
	q := &historyQueue{}
	seq := 0
	schedule := func(at time.Time, plan, vote int) {
		if at.Before(end) {
			heap.Push(q, historyEvent{at: at, seq: seq, plan: plan, vote: vote})
			seq++
		}
	}
	for i, p := range plans {
		schedule(p.at, i, -1)
	}
	activities := make([]*client.Activity, len(plans))
	var last time.Time
	for q.Len() > 0 {
		e, _ := heap.Pop(q).(historyEvent)
		at := e.at.Truncate(time.Millisecond)
		if !at.After(last) {
			at = last.Add(time.Millisecond)
		}
		if !at.Before(end) {
			continue
		}
		p := &plans[e.plan]
		if e.vote < 0 {
			actor := r.actors[p.actor]
			if actor.key == nil {
				continue
			}
			last = at
			act, fresh, apiErr := r.send(at, actor.key, p.op, p.params)
			if apiErr != nil {
				return fmt.Errorf("emulator: history: %s by %s at %s was refused: %s", p.op.Name, actor.userID, at.Format(time.RFC3339), apiErr.message)
			}
			if !fresh {
				continue // the same request as an earlier history's: that activity
			}
			r.created = append(r.created, act.ID)
			activities[e.plan] = act
			if next, ok := r.nextVote(p, act, 0); ok {
				schedule(at.Add(p.fate.delays[0]), e.plan, next)
			}
			continue
		}
		act := activities[e.plan]
		if act.Status != client.StatusConsensusNeeded {
			continue
		}
		voters := r.voters(p)
		selection := client.OpApproveActivity
		if p.fate.reject && e.vote == p.fate.rejectAt {
			selection = client.OpRejectActivity
		}
		last = at
		voted, fresh, apiErr := r.send(at, voters[e.vote].key, selection, client.VoteParams{Fingerprint: act.Fingerprint})
		switch {
		case apiErr == nil && fresh:
			r.votes++
			activities[e.plan] = voted
		case apiErr == nil:
			continue
		case apiErr.code != client.CodePermissionDenied && apiErr.code != client.CodeFailedPrecondition:
			return fmt.Errorf("emulator: history: %s of activity %s by %s at %s was refused: %s", selection.Name, act.ID,
				voters[e.vote].userID, at.Format(time.RFC3339), apiErr.message)
		}
		// A vote the policies do not let this user cast is not cast: the
		// next voter may.
		if next, ok := r.nextVote(p, activities[e.plan], e.vote+1); ok {
			schedule(at.Add(p.fate.delays[min(next, len(p.fate.delays)-1)]), e.plan, next)
		}
	}
	return nil
}

// nextVote is the index of the next vote on act the plan's fate casts,
// from vote on, if any.
func (r *historyRun) nextVote(p *historyPlan, act *client.Activity, vote int) (int, bool) {
	if act.Status != client.StatusConsensusNeeded || p.fate.pending || vote >= len(r.voters(p)) {
		return 0, false
	}
	if p.fate.reject && vote > p.fate.rejectAt {
		return 0, false
	}
	return vote, true
}

// voters are those who may vote on a plan's activity, in the order they
// do: the people its fate drew; when it escalates, the root users with
// keys after the first of them; when a root user asked, the other root
// users first. Never the requester.
func (r *historyRun) voters(p *historyPlan) []historyActor {
	var people, roots []historyActor
	for _, i := range p.fate.voters {
		if i != p.actor {
			people = append(people, r.actors[i])
		}
	}
	for i := historyRoot; i < len(r.actors); i++ {
		if i != p.actor && r.actors[i].key != nil {
			roots = append(roots, r.actors[i])
		}
	}
	switch {
	case r.actors[p.actor].root:
		return append(roots, people...)
	case p.fate.escalate && len(people) > 0:
		return append(append([]historyActor{people[0]}, roots...), people[1:]...)
	}
	return people
}

// send submits params to op as key's user at the moment at, through the
// request path (authentication, then the submit), and returns the
// answer's activity, or the refusal. fresh is false when the emulator
// took the request for a resubmission (an identical body: the same seed
// and moments as an earlier history) and answered with what it did then.
func (r *historyRun) send(at time.Time, key *client.APIKey, op client.Operation, params any) (_ *client.Activity, fresh bool, _ *apiError) {
	s := r.s
	s.backdated.Store(&at)
	p, err := json.Marshal(params)
	if err != nil {
		return nil, false, errInternal("encoding the parameters: %v", err)
	}
	body, err := json.Marshal(client.Envelope{Type: op.Type, TimestampMs: strconv.FormatInt(at.UnixMilli(), 10),
		OrganizationID: s.st.Organization.ID, Parameters: p})
	if err != nil {
		return nil, false, errInternal("encoding the envelope: %v", err)
	}
	stamp, err := key.Stamp(body)
	if err != nil {
		return nil, false, errInternal("stamping: %v", err)
	}
	req, err := http.NewRequest(http.MethodPost, "/public/v1/submit/"+op.Name, bytes.NewReader(body))
	if err != nil {
		return nil, false, errInternal("%v", err)
	}
	req.Header.Set(client.StampHeader, stamp)
	req.RemoteAddr = historyRemoteAddr
	spec := submitOps[op.Name]
	before := s.changes
	resp := s.respond(req, op.Name, body, func(s *Server, c *caller, b []byte) (any, *apiError) { return s.submit(c, op.Name, spec, b) })
	if resp.status != http.StatusOK {
		var st client.Status
		_ = json.Unmarshal(resp.body, &st)
		return nil, false, &apiError{status: resp.status, code: st.Code, message: st.Message}
	}
	var answer client.ActivityResponse
	if err := json.Unmarshal(resp.body, &answer); err != nil {
		return nil, false, errInternal("decoding the answer: %v", err)
	}
	return &answer.Activity, s.changes != before, nil
}
