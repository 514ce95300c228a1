package emulator

import (
	"cmp"
	"slices"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

var policyEffects = []string{client.EffectAllow, client.EffectDeny}

func init() {
	registerSubmit(client.OpCreatePolicies,
		[]string{"policies", "policies[].policyName", "policies[].effect", "policies[].notes"},
		validateCreatePolicies, runCreatePolicies)
	registerSubmit(client.OpUpdatePolicy,
		[]string{"policyId"}, validateUpdatePolicy, runUpdatePolicy)
	registerSubmit(client.OpDeletePolicy,
		[]string{"policyId"},
		func(p *client.DeletePolicyParams) *apiError { return checkPolicyID("parameters.policyId", p.PolicyID) },
		func(s *Server, _ *caller, p *client.DeletePolicyParams) (any, *client.Status) {
			if _, ok := s.st.Policies[p.PolicyID]; !ok {
				return nil, notFound("policy %s not found", p.PolicyID)
			}
			delete(s.st.Policies, p.PolicyID)
			s.policyRemoved(p.PolicyID)
			return client.PolicyIDResult{PolicyID: p.PolicyID}, nil
		})
	registerSubmit(client.OpDeletePolicies,
		[]string{"policyIds"},
		func(p *client.DeletePoliciesParams) *apiError {
			if len(p.PolicyIDs) == 0 {
				return errInvalid("field parameters.policyIds must list at least one policy")
			}
			for i, id := range p.PolicyIDs {
				if e := checkPolicyID(sprintf("parameters.policyIds[%d]", i), id); e != nil {
					return e
				}
			}
			return checkUniqueIDs("parameters.policyIds", p.PolicyIDs)
		},
		runDeletePolicies)
	registerQuery(client.QueryGetPolicy, []string{"policyId"}, func(s *Server, _ *caller, req *client.GetPolicyRequest) (any, *apiError) {
		if e := checkPolicyID("policyId", req.PolicyID); e != nil {
			return nil, e
		}
		p, ok := s.st.Policies[req.PolicyID]
		if !ok {
			return nil, errNotFound("policy %s not found in organization %s", req.PolicyID, s.st.Organization.ID)
		}
		return client.GetPolicyResponse{Policy: *p}, nil
	})
	registerQuery(client.QueryListPolicies, nil, func(s *Server, _ *caller, _ *client.ListPoliciesRequest) (any, *apiError) {
		out := []client.Policy{}
		for _, p := range s.sortedPolicies(policyByCreation) {
			out = append(out, *p)
		}
		return client.ListPoliciesResponse{Policies: out}, nil
	})
}

// runDeletePolicies deletes every policy listed, or none when one of them
// does not exist.
func runDeletePolicies(s *Server, _ *caller, p *client.DeletePoliciesParams) (any, *client.Status) {
	for i, id := range p.PolicyIDs {
		if _, ok := s.st.Policies[id]; !ok {
			return nil, notFound("policyIds[%d]: policy %s not found", i, id)
		}
	}
	for _, id := range p.PolicyIDs {
		delete(s.st.Policies, id)
		s.policyRemoved(id)
	}
	return client.PolicyIDsResult{PolicyIDs: p.PolicyIDs}, nil
}

func validateCreatePolicies(p *client.CreatePoliciesParams) *apiError {
	if len(p.Policies) == 0 {
		return errInvalid("field parameters.policies must hold at least one policy")
	}
	for i, pol := range p.Policies {
		at := sprintf("parameters.policies[%d]", i)
		if e := checkName(at+".policyName", pol.PolicyName); e != nil {
			return e
		}
		if e := oneOf(at+".effect", pol.Effect, policyEffects...); e != nil {
			return e
		}
	}
	return nil
}

// runCreatePolicies parses every expression before storing anything, so a
// syntax error leaves no policy behind.
func runCreatePolicies(s *Server, _ *caller, p *client.CreatePoliciesParams) (any, *client.Status) {
	for i, pol := range p.Policies {
		at := sprintf("policies[%d].", i)
		if f := parseExpressions(namedExpression{at + "condition", policylang.FieldCondition, pol.Condition},
			namedExpression{at + "consensus", policylang.FieldConsensus, pol.Consensus},
			namedExpression{at + "time", policylang.FieldTime, pol.Time}); f != nil {
			return nil, f
		}
	}
	now := client.NewTimestamp(s.now())
	ids := make([]string, 0, len(p.Policies))
	for _, pol := range p.Policies {
		id := newID()
		stored := &client.Policy{PolicyID: id, PolicyName: pol.PolicyName, Effect: pol.Effect, Condition: pol.Condition,
			Consensus: pol.Consensus, Notes: pol.Notes, Time: pol.Time, CreatedAt: now, UpdatedAt: now}
		s.st.Policies[id] = stored
		s.policyAdded(stored)
		ids = append(ids, id)
	}
	return client.CreatePoliciesResult{PolicyIDs: ids}, nil
}

func validateUpdatePolicy(p *client.UpdatePolicyParams) *apiError {
	if e := checkPolicyID("parameters.policyId", p.PolicyID); e != nil {
		return e
	}
	if p.PolicyName != nil {
		if e := checkName("parameters.policyName", *p.PolicyName); e != nil {
			return e
		}
	}
	if p.PolicyEffect != nil {
		return oneOf("parameters.policyEffect", *p.PolicyEffect, policyEffects...)
	}
	return nil
}

// runUpdatePolicy changes only the fields sent; a present "" clears an
// expression or the notes.
func runUpdatePolicy(s *Server, _ *caller, p *client.UpdatePolicyParams) (any, *client.Status) {
	pol, ok := s.st.Policies[p.PolicyID]
	if !ok {
		return nil, notFound("policy %s not found", p.PolicyID)
	}
	if f := parseExpressions(namedExpression{"policyCondition", policylang.FieldCondition, strOrEmpty(p.PolicyCondition)},
		namedExpression{"policyConsensus", policylang.FieldConsensus, strOrEmpty(p.PolicyConsensus)},
		namedExpression{"time", policylang.FieldTime, strOrEmpty(p.Time)}); f != nil {
		return nil, f
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&pol.PolicyName, p.PolicyName)
	set(&pol.Effect, p.PolicyEffect)
	set(&pol.Condition, p.PolicyCondition)
	set(&pol.Consensus, p.PolicyConsensus)
	set(&pol.Notes, p.PolicyNotes)
	set(&pol.Time, p.Time)
	pol.UpdatedAt = client.NewTimestamp(s.now())
	return client.PolicyIDResult{PolicyID: p.PolicyID}, nil
}

// parseExpressions takes (field, expression, name) triples and checks
// each non-empty expression in the policy language, the way the service
// refuses a policy it cannot parse: the failure names the field and the
// position. Warnings (an unknown field, a value outside a documented set)
// do not refuse: the service may know newer fields than its documentation.
func parseExpressions(exprs ...namedExpression) *client.Status {
	for _, e := range exprs {
		if e.expr == "" {
			continue
		}
		if _, d := policyset.Compile(e.field, e.expr); d != nil {
			return failure(client.CodeInvalidArgument, "%s is not a valid %s expression: line %d, column %d: %s",
				e.name, e.field, d.Span.Start.Line, d.Span.Start.Col, d.Message)
		}
	}
	return nil
}

// namedExpression is an expression of a request, named as the request
// names it (policies[0].condition, policyConsensus).
type namedExpression struct {
	name  string
	field policylang.Field
	expr  string
}

// checkID refuses an empty identifier: it can name nothing.
func checkPolicyID(field, id string) *apiError {
	if id == "" {
		return errInvalid("field %s must not be empty", field)
	}
	return nil
}

func strOrEmpty(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func policyByCreation(a, b *client.Policy) int {
	return cmp.Or(policyStampTime(a.CreatedAt).Compare(policyStampTime(b.CreatedAt)), cmp.Compare(a.PolicyID, b.PolicyID))
}

func policyByID(a, b *client.Policy) int { return cmp.Compare(a.PolicyID, b.PolicyID) }

// policiesByID is the stored policies by id. It is sorted once and then
// kept in order as policies come and go, rather than sorted on every vote:
// at a thousand policies, that sort was a third of the emulator's time per
// submit.
func (s *Server) policiesByID() []*client.Policy {
	if s.policyOrder == nil {
		s.policyOrder = s.sortedPolicies(policyByID)
	}
	return s.policyOrder
}

func (s *Server) policyAdded(p *client.Policy) {
	if s.policyOrder == nil {
		return // sorted when next needed
	}
	i, _ := slices.BinarySearchFunc(s.policyOrder, p, policyByID)
	s.policyOrder = slices.Insert(s.policyOrder, i, p)
}

func (s *Server) policyRemoved(id string) {
	if s.policyOrder == nil {
		return
	}
	if i, ok := slices.BinarySearchFunc(s.policyOrder, id, func(p *client.Policy, id string) int { return cmp.Compare(p.PolicyID, id) }); ok {
		s.policyOrder = slices.Delete(s.policyOrder, i, i+1)
	}
}

// sortedPolicies gives the stored policies in a deterministic order.
func (s *Server) sortedPolicies(order func(a, b *client.Policy) int) []*client.Policy {
	out := make([]*client.Policy, 0, len(s.st.Policies))
	for _, p := range s.st.Policies {
		out = append(out, p)
	}
	slices.SortFunc(out, order)
	return out
}

func policyStampTime(t client.Timestamp) time.Time {
	v, _ := t.Time() // the emulator writes every stored timestamp itself
	return v
}
