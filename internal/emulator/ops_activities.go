package emulator

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

func init() {
	for _, v := range []struct {
		op        client.Operation
		selection string
	}{
		{client.OpApproveActivity, client.VoteApproved},
		{client.OpRejectActivity, client.VoteRejected},
	} {
		submitOps[v.op.Name] = submitSpec{Operation: v.op, vote: v.selection, check: func(raw json.RawMessage) *apiError {
			var p client.VoteParams
			if e := decodeStrict(raw, &p, "parameters"); e != nil {
				return e
			}
			return requireFields(raw, "parameters", "fingerprint")
		}}
	}
	registerQuery(client.QueryGetActivity, []string{"activityId"}, func(s *Server, who *caller, req *client.GetActivityRequest) (any, *apiError) {
		rec, e := s.activity(who, req.ActivityID)
		if e != nil {
			return nil, e
		}
		return client.ActivityResponse{Activity: rec.Activity}, nil
	})
	registerQuery(client.QueryGetPolicyEvaluations, []string{"activityId"}, func(s *Server, who *caller, req *client.GetPolicyEvaluationsRequest) (any, *apiError) {
		if _, e := s.activity(who, req.ActivityID); e != nil {
			return nil, e
		}
		evals := s.st.PolicyEvaluations[req.ActivityID]
		if evals == nil {
			evals = []client.PolicyEvaluationRecord{}
		}
		return client.GetPolicyEvaluationsResponse{PolicyEvaluations: evals}, nil
	})
	registerQuery(client.QueryListActivities, nil, listActivities)
}

// vote records an approval or rejection of the activity with the given
// fingerprint by a user who has not voted on it yet: a root user, or any
// user while a policy holds the activity for consensus (the service lets
// users approve what a consensus expression names them for; the emulator
// does not tell who an expression names).
func (s *Server) vote(who *caller, selection string, raw json.RawMessage, voteFingerprint string) (any, *apiError) {
	var p client.VoteParams
	_ = json.Unmarshal(raw, &p) // checked by the spec
	id, ok := s.st.Fingerprints[p.Fingerprint]
	if !ok || s.st.Activities[id].Activity.OrganizationID != who.OrganizationID {
		return nil, errNotFound("no activity with fingerprint %s in organization %s", p.Fingerprint, who.OrganizationID)
	}
	rec := s.st.Activities[id]
	act := &rec.Activity
	if act.Status != client.StatusConsensusNeeded {
		return nil, &apiError{http.StatusBadRequest, client.CodeFailedPrecondition, sprintf("activity %s is %s and can no longer be voted on", act.ID, act.Status)}
	}
	if user := s.st.userByID(who.UserID); !user.Root && !s.awaitsConsensus(act.ID) {
		return nil, errDenied("user %s is not a root user, and no policy holds activity %s for consensus, so it cannot vote on it", who.UserID, act.ID)
	}
	if slices.ContainsFunc(act.Votes, func(v client.Vote) bool { return v.UserID == who.UserID }) {
		return nil, &apiError{http.StatusBadRequest, client.CodeFailedPrecondition, sprintf("user %s has already voted on activity %s", who.UserID, act.ID)}
	}
	ev := s.addVote(rec, who, selection)
	if selection == client.VoteRejected {
		act.Status, act.CanApprove, act.CanReject = client.StatusRejected, false, false
		act.UpdatedAt = client.NewTimestamp(s.now())
	} else {
		s.advance(rec, who, ev)
	}
	s.st.VoteFingerprints[voteFingerprint] = act.ID
	s.changed()
	s.deliveries.activityUpdated(*act)
	return submitAnswer(act), nil
}

// awaitsConsensus tells whether the last evaluation of an activity had a
// policy waiting for approvals.
func (s *Server) awaitsConsensus(activityID string) bool {
	evals := s.st.PolicyEvaluations[activityID]
	if len(evals) == 0 {
		return false
	}
	return slices.ContainsFunc(evals[len(evals)-1].PolicyEvaluations, func(e client.PolicyEvaluation) bool {
		return e.Outcome == client.OutcomeRequiresConsensus
	})
}

func (s *Server) activity(who *caller, id string) (*activityRecord, *apiError) {
	rec, ok := s.st.Activities[id]
	if !ok || rec.Activity.OrganizationID != who.OrganizationID {
		return nil, errNotFound("activity %s not found in organization %s", id, who.OrganizationID)
	}
	return rec, nil
}

var (
	activityStatuses = []string{client.StatusCreated, client.StatusPending, client.StatusCompleted, client.StatusFailed,
		client.StatusConsensusNeeded, client.StatusRejected, client.StatusAuthenticatorsNeeded}
	activityTypeShape = regexp.MustCompile(`^` + client.ActivityTypePrefix + `[A-Z0-9_]+$`)
)

const (
	defaultPageLimit = 10
	maxPageLimit     = 100
)

// listActivities lists newest first; before and after are activity ids
// that bound the page (exclusive).
func listActivities(s *Server, who *caller, req *client.ListActivitiesRequest) (any, *apiError) {
	for i, st := range req.FilterByStatus {
		if e := oneOf(sprintf("filterByStatus[%d]", i), st, activityStatuses...); e != nil {
			return nil, e
		}
	}
	for i, t := range req.FilterByType {
		if !activityTypeShape.MatchString(t) {
			return nil, errInvalid("field filterByType[%d]: %q is not an activity type (%s...)", i, t, client.ActivityTypePrefix)
		}
	}
	limit := defaultPageLimit
	var before, after string
	if p := req.PaginationOptions; p != nil {
		if p.Limit != "" {
			n, err := strconv.Atoi(p.Limit)
			if err != nil || n < 1 || n > maxPageLimit {
				return nil, errInvalid("field paginationOptions.limit: %q must be a whole number from 1 to %d", p.Limit, maxPageLimit)
			}
			limit = n
		}
		before, after = p.Before, p.After
		for _, cursor := range []string{before, after} {
			if _, ok := s.st.Activities[cursor]; cursor != "" && !ok {
				return nil, errNotFound("pagination cursor: activity %s not found", cursor)
			}
		}
	}
	out := []client.Activity{}
	started := after == ""
	for i := len(s.st.ActivityOrder) - 1; i >= 0 && len(out) < limit; i-- {
		id := s.st.ActivityOrder[i]
		if !started {
			started = id == after
			continue
		}
		if id == before {
			break
		}
		act := s.st.Activities[id].Activity
		if act.OrganizationID != who.OrganizationID ||
			(len(req.FilterByStatus) > 0 && !slices.Contains(req.FilterByStatus, act.Status)) ||
			(len(req.FilterByType) > 0 && !slices.Contains(req.FilterByType, act.Type)) {
			continue
		}
		out = append(out, act)
	}
	return client.ListActivitiesResponse{Activities: out}, nil
}
