package emulator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

var sprintf = fmt.Sprintf

// envelope is the submit body, with pointers so that absence is visible.
type envelope struct {
	Type              *string         `json:"type"`
	TimestampMs       *string         `json:"timestampMs"`
	OrganizationID    *string         `json:"organizationId"`
	Parameters        json.RawMessage `json:"parameters"`
	GenerateAppProofs *bool           `json:"generateAppProofs"`
}

// submit runs one activity endpoint. Caller holds s.mu.
func (s *Server) submit(who *caller, op string, spec submitSpec, body []byte) (any, *apiError) {
	var env envelope
	if e := decodeStrict(body, &env, ""); e != nil {
		return nil, e
	}
	if e := requireFields(body, "", "type", "timestampMs", "organizationId", "parameters"); e != nil {
		return nil, e
	}
	if *env.Type != spec.Type {
		return nil, errInvalid("type %q does not match endpoint %s, which takes %q", *env.Type, op, spec.Type)
	}
	if e := s.checkLiveness(*env.TimestampMs); e != nil {
		return nil, e
	}
	fingerprint := hashBody(body)
	// An identical body is the same request: answer with what it did.
	if id, ok := s.st.Fingerprints[fingerprint]; ok {
		if s.faults.staleRetry() {
			return nil, s.staleTimestamp(*env.TimestampMs)
		}
		return submitAnswer(&s.st.Activities[id].Activity), nil
	}
	if id, ok := s.st.VoteFingerprints[fingerprint]; ok {
		return submitAnswer(&s.st.Activities[id].Activity), nil
	}
	if e := spec.check(env.Parameters); e != nil {
		return nil, e
	}
	if spec.vote != "" {
		return s.vote(who, spec.vote, env.Parameters, fingerprint)
	}
	return s.createActivity(who, op, spec, env.Parameters, fingerprint)
}

func (s *Server) checkLiveness(ms string) *apiError {
	v, err := strconv.ParseInt(ms, 10, 64)
	if err != nil {
		return errInvalid("field timestampMs: %q is not a decimal count of milliseconds", ms)
	}
	skew := s.now().Sub(time.UnixMilli(v))
	if skew > s.opts.LivenessWindow || -skew > s.opts.LivenessWindow {
		return s.staleTimestamp(ms)
	}
	return nil
}

// staleTimestamp is the refusal of a timestampMs outside the liveness
// window.
func (s *Server) staleTimestamp(ms string) *apiError {
	return errInvalid("field timestampMs: %s is outside the liveness window of ±%s around the service's time %s; send a fresh timestamp",
		ms, s.opts.LivenessWindow, s.now().UTC().Format(time.RFC3339))
}

func hashBody(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// createActivity records a new activity with the requester's approval as
// its first vote, and runs it when that already makes a quorum.
func (s *Server) createActivity(who *caller, op string, spec submitSpec, params json.RawMessage, fingerprint string) (any, *apiError) {
	now := client.NewTimestamp(s.now())
	rec := &activityRecord{Op: op, Params: params, Activity: client.Activity{
		ID:             newID(),
		OrganizationID: who.OrganizationID,
		Status:         client.StatusCreated,
		Type:           spec.Type,
		Intent:         map[string]json.RawMessage{spec.IntentKey: params},
		Result:         map[string]json.RawMessage{},
		Votes:          []client.Vote{},
		Fingerprint:    fingerprint,
		CreatedAt:      now,
		UpdatedAt:      now,
	}}
	s.st.Activities[rec.Activity.ID] = rec
	s.st.ActivityOrder = append(s.st.ActivityOrder, rec.Activity.ID)
	s.st.Fingerprints[fingerprint] = rec.Activity.ID
	ev := s.addVote(rec, who, client.VoteApproved)
	s.advance(rec, who, ev)
	s.changed()
	s.deliveries.activityUpdated(rec.Activity)
	return submitAnswer(&rec.Activity), nil
}

// advance acts on the policies' decision after a vote: it runs the
// activity, leaves it waiting for more approvals, or fails it as denied.
func (s *Server) advance(rec *activityRecord, who *caller, ev evaluation) {
	act := &rec.Activity
	switch ev.decision.Verdict {
	case client.OutcomeRequiresConsensus:
		act.Status, act.CanApprove, act.CanReject = client.StatusConsensusNeeded, true, true
		return
	case client.OutcomeDenyExplicit, client.OutcomeDenyImplicit:
		act.Status, act.Failure = client.StatusFailed, ev.failure
		act.CanApprove, act.CanReject = false, false
		act.UpdatedAt = client.NewTimestamp(s.now())
		return
	}
	spec := submitOps[rec.Op]
	result, fail := spec.run(s, who, rec.Params)
	act.CanApprove, act.CanReject = false, false
	act.UpdatedAt = client.NewTimestamp(s.now())
	if fail != nil {
		act.Status, act.Failure = client.StatusFailed, fail
		return
	}
	raw, err := json.Marshal(result)
	if err != nil {
		act.Status, act.Failure = client.StatusFailed, failure(client.CodeInternal, "encoding result: %v", err)
		return
	}
	act.Status = client.StatusCompleted
	act.Result = map[string]json.RawMessage{spec.ResultKey: raw}
}

// addVote records a vote, then the policies' evaluation with it, which it
// returns.
func (s *Server) addVote(rec *activityRecord, who *caller, selection string) evaluation {
	user := s.st.userByID(who.UserID)
	v := client.Vote{
		ID:         newID(),
		UserID:     who.UserID,
		User:       s.userView(user),
		ActivityID: rec.Activity.ID,
		Selection:  selection,
		Message:    string(who.Body), // the request that cast the vote, as signed
		PublicKey:  who.PublicKey,
		Signature:  who.Signature,
		Scheme:     client.StampSchemeP256,
		CreatedAt:  client.NewTimestamp(s.now()),
	}
	rec.Activity.Votes = append(rec.Activity.Votes, v)
	ev := s.evaluate(rec)
	s.st.PolicyEvaluations[rec.Activity.ID] = append(s.st.PolicyEvaluations[rec.Activity.ID], client.PolicyEvaluationRecord{
		ID:                newID(),
		ActivityID:        rec.Activity.ID,
		OrganizationID:    rec.Activity.OrganizationID,
		VoteID:            v.ID,
		PolicyEvaluations: ev.outcomes,
		CreatedAt:         v.CreatedAt,
	})
	return ev
}

// userView renders a user record as the wire's User.
func (s *Server) userView(u *userRecord) client.User {
	out := client.User{UserID: u.UserID, UserName: u.UserName, UserEmail: u.Email, Authenticators: []client.Authenticator{}, APIKeys: []client.UserAPIKey{},
		UserTags: append([]string{}, u.Tags...), OauthProviders: []client.OauthProvider{}, MfaPolicies: s.st.MfaPolicies[u.UserID], CreatedAt: u.CreatedAt, UpdatedAt: u.CreatedAt}
	if out.MfaPolicies == nil {
		out.MfaPolicies = []client.MfaPolicy{}
	}
	for _, k := range u.APIKeys {
		out.APIKeys = append(out.APIKeys, client.UserAPIKey{APIKeyID: k.APIKeyID, APIKeyName: k.Name, CreatedAt: k.CreatedAt, UpdatedAt: k.CreatedAt,
			Credential: client.Credential{PublicKey: k.PublicKey, Type: client.CredentialTypeAPIKeyP256}})
	}
	for _, p := range s.st.OauthProviders {
		if p.UserID == u.UserID {
			out.OauthProviders = append(out.OauthProviders, p.OauthProvider)
		}
	}
	return out
}

// submitAnswer is the submit response: the activity with its times as
// strings, as the spec shows for submit responses.
func submitAnswer(act *client.Activity) client.ActivityResponse {
	out := *act
	out.CreatedAt = textTimestamp(act.CreatedAt)
	out.UpdatedAt = textTimestamp(act.UpdatedAt)
	return client.ActivityResponse{Activity: out}
}

func textTimestamp(t client.Timestamp) client.Timestamp {
	v, err := t.Time()
	if err != nil {
		return t
	}
	return client.Timestamp{Text: v.Format(time.RFC3339Nano)}
}
