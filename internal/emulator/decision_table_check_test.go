package emulator

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/policysettest"
)

// How TestDecisionTable checks a case once its activity is decided: the
// status against the decision the table wants, the outcomes the service
// recorded, and the request the emulator parsed, decided again by the
// engine.

// notParsed are eth.tx's fields the emulator cannot give: they need an
// uploaded ABI, which the interface has no way to upload.
var notParsed = map[string]bool{"function_name": true, "function_signature": true, "contract_call_args": true}

// checkParsed compares what the emulator parsed of the submitted
// transaction or typed data with the keywords the table wrote, field by
// field (from is the key's address), and the decision it makes of them
// with the one the case wants of the emulator, evaluation errors included.
func (d *decisionCase) checkParsed(t *testing.T, activityID string) {
	t.Helper()
	req := d.srv.requestOf(t, activityID)
	for name, v := range d.c.Request.Eth {
		if _, ok := v.(map[string]any); !ok {
			continue
		}
		want := d.caseKeyword(t, name)
		gotAny, ok := req.Keyword("eth." + name)
		got, _ := gotAny.(map[string]any)
		if !ok || got == nil {
			t.Fatalf("the emulator's request has no eth.%s", name)
		}
		for k, w := range want {
			if notParsed[k] {
				continue
			}
			if keywordText(got[k]) != keywordText(w) {
				t.Errorf("eth.%s.%s: the emulator parsed %s, the table has %s", name, k, keywordText(got[k]), keywordText(w))
			}
		}
		if from, ok := got["from"]; name == "tx" && from != d.ids[addressPlaceholder(d.c.Request.PrivateKey.ID)] {
			t.Errorf("eth.tx.from = %v (present %v), want the key's address %s", from, ok, d.ids[addressPlaceholder(d.c.Request.PrivateKey.ID)])
		}
	}
	policies := d.c.EnginePolicies()
	for i := range policies {
		p := &policies[i]
		p.Condition, p.Consensus, p.Time = d.real(p.Condition), d.real(p.Consensus), d.real(p.Time)
	}
	if msg := d.c.EmulatorMismatch(policyset.Decide(policies, req)); msg != "" {
		t.Fatalf("the emulator's request decides: %s", msg)
	}
}

// requestOf is the request the policies see of an activity now.
func (s *Server) requestOf(t *testing.T, activityID string) policyset.Request {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.st.Activities[activityID]
	if rec == nil {
		t.Fatalf("no activity %s", activityID)
	}
	return s.request(rec)
}

// want is the decision the emulator must make: the case's, or its
// emulator override's where the emulator cannot make the request as the
// table writes it.
func (d *decisionCase) want() policysettest.Want {
	if d.c.Emulator != nil {
		return d.c.Emulator.Want
	}
	return d.c.Want
}

// check compares how the activity ended with the decision the case wants,
// and returns the activity's id.
func (d *decisionCase) check(t *testing.T, err error, act client.Activity) string {
	t.Helper()
	want := d.want()
	var needed *client.ConsensusNeededError
	var ae *client.ActivityError
	switch {
	case want.Verdict == client.OutcomeAllow && err == nil:
		return act.ID
	case want.Verdict == client.OutcomeRequiresConsensus && errors.As(err, &needed):
		return needed.ActivityID
	case (want.Verdict == client.OutcomeDenyExplicit || want.Verdict == client.OutcomeDenyImplicit) && errors.As(err, &ae) &&
		ae.Status == client.StatusFailed && ae.Failure != nil && ae.Failure.Code == client.CodePermissionDenied:
		why := "is implicitly denied"
		if want.Verdict == client.OutcomeDenyExplicit {
			why = fmt.Sprintf("is denied by policy %s (%q)", d.policyID(t, want.DecidedBy[0]), want.DecidedBy[0])
		}
		if !strings.Contains(ae.Failure.Message, why) {
			t.Fatalf("failure %q, want it to say %q", ae.Failure.Message, why)
		}
		return ae.ActivityID
	}
	t.Fatalf("the activity ended with %v, want %s", err, want.Verdict)
	return ""
}

// policyID is the id of the case's policy named name.
func (d *decisionCase) policyID(t *testing.T, name string) string {
	t.Helper()
	list, err := d.roots[0].ListPolicies(t.Context(), client.ListPoliciesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Policies {
		if p.PolicyName == name {
			return p.PolicyID
		}
	}
	t.Fatalf("no policy named %q", name)
	return ""
}

// checkOutcomes compares the evaluation recorded at the last vote with the
// case's policy outcomes: the service records the policies that applied.
func (d *decisionCase) checkOutcomes(t *testing.T, activityID string) {
	t.Helper()
	got, err := d.roots[0].GetPolicyEvaluations(t.Context(), client.GetPolicyEvaluationsRequest{ActivityID: activityID})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.PolicyEvaluations) != len(d.c.Request.Approvers) {
		t.Fatalf("%d evaluation records, want one per approver (%d)", len(got.PolicyEvaluations), len(d.c.Request.Approvers))
	}
	recorded := map[string]string{}
	for _, ev := range got.PolicyEvaluations[len(got.PolicyEvaluations)-1].PolicyEvaluations {
		recorded[ev.PolicyID] = ev.Outcome
	}
	want := map[string]string{}
	for _, p := range d.want().Policies {
		if p.Outcome != policyset.OutcomeNotApplicable {
			want[d.policyID(t, p.Name)] = p.Outcome
		}
	}
	if !mapsEqual(recorded, want) {
		t.Fatalf("recorded outcomes %v, want %v", recorded, want)
	}
}
