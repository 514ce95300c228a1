package emulator

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// The allowlists are enforced in auth.go (enforceAllowlist); these
// endpoints only manage them.
func init() {
	registerSubmit(client.OpSetIPAllowlist,
		nil, validateSetAllowlist, runSetAllowlist)
	registerSubmit(client.OpRemoveIPAllowlist,
		nil,
		func(p *client.RemoveIPAllowlistParams) *apiError {
			return checkAllowlistKey("parameters.publicKey", p.PublicKey)
		},
		func(s *Server, _ *caller, p *client.RemoveIPAllowlistParams) (any, *client.Status) {
			key, scope := s.allowlistKey(p.PublicKey)
			if s.st.Allowlists[key] == nil {
				return nil, notFound("no IP allowlist is set for %s", scope)
			}
			delete(s.st.Allowlists, key)
			return client.EmptyResult{}, nil
		})
	registerQuery(client.QueryGetIPAllowlist, nil, func(s *Server, _ *caller, req *client.GetIPAllowlistRequest) (any, *apiError) {
		if e := checkAllowlistKey("publicKey", req.PublicKey); e != nil {
			return nil, e
		}
		key, scope := s.allowlistKey(req.PublicKey)
		rec := s.st.Allowlists[key]
		if rec == nil {
			return nil, errNotFound("no IP allowlist is set for %s", scope)
		}
		out := client.IPAllowlist{OrganizationID: s.st.Organization.ID, Rules: append([]client.IPAllowlistRule{}, rec.Rules...),
			PublicKey: rec.PublicKey, OnEvaluationError: rec.OnEvaluationError}
		if rec.PublicKey == "" {
			enabled := rec.Enabled // only an organization-level allowlist has the switch
			out.Enabled = &enabled
		}
		return client.GetIPAllowlistResponse{Allowlist: out}, nil
	})
}

func validateSetAllowlist(p *client.SetIPAllowlistParams) *apiError {
	if e := checkAllowlistKey("parameters.publicKey", p.PublicKey); e != nil {
		return e
	}
	if p.Enabled != nil && p.PublicKey != "" {
		return errInvalid("field parameters.enabled: enabled is meaningful only for organization-level allowlists; omit it for a key-level one")
	}
	if p.OnEvaluationError != "" {
		if e := oneOf("parameters.onEvaluationError", p.OnEvaluationError, client.OnEvaluationErrorAllow, client.OnEvaluationErrorDeny); e != nil {
			return e
		}
	}
	for i, r := range p.Rules {
		if e := checkCIDR(sprintf("parameters.rules[%d].cidr", i), r.CIDR); e != nil {
			return e
		}
	}
	return nil
}

// runSetAllowlist replaces the allowlist (rules are not merged). A rule
// sent again with the same cidr and label keeps its createdAt, so that
// re-applying an unchanged configuration changes nothing visible.
func runSetAllowlist(s *Server, _ *caller, p *client.SetIPAllowlistParams) (any, *client.Status) {
	key, scope := s.allowlistKey(p.PublicKey)
	if p.PublicKey != "" && s.st.userByKey(key) == nil {
		return nil, notFound("%s belongs to no user of organization %s", scope, s.st.Organization.ID)
	}
	rec := &allowlistRecord{OnEvaluationError: p.OnEvaluationError, Rules: []client.IPAllowlistRule{}}
	if rec.OnEvaluationError == "" {
		rec.OnEvaluationError = client.OnEvaluationErrorDeny
	}
	if p.PublicKey != "" {
		rec.PublicKey, rec.Enabled = key, true // a key-level allowlist is always enforced
	} else if p.Enabled != nil {
		rec.Enabled = *p.Enabled
	}
	var old []client.IPAllowlistRule
	if prev := s.st.Allowlists[key]; prev != nil {
		old = prev.Rules
	}
	// createdAt is milliseconds since the epoch, a decimal string, as the
	// reference describes a rule.
	now := strconv.FormatInt(s.now().UnixMilli(), 10)
	for _, r := range p.Rules {
		rule := client.IPAllowlistRule{CIDR: r.CIDR, Label: r.Label, CreatedAt: now}
		if i := slices.IndexFunc(old, func(o client.IPAllowlistRule) bool { return o.CIDR == r.CIDR && o.Label == r.Label }); i >= 0 {
			rule.CreatedAt = old[i].CreatedAt
		}
		rec.Rules = append(rec.Rules, rule)
	}
	s.st.Allowlists[key] = rec
	return client.EmptyResult{}, nil
}

// allowlistKey is where an allowlist lives in state, and how messages name
// it: the organization's, or an API key's (keys are stored lower-case, as
// the stamp verifier writes them).
func (s *Server) allowlistKey(publicKey string) (key, scope string) {
	if publicKey == "" {
		return orgAllowlistKey, "organization " + s.st.Organization.ID
	}
	key = strings.ToLower(publicKey)
	return key, "API key " + key
}

func checkAllowlistKey(field, v string) *apiError {
	if v == "" {
		return nil
	}
	if _, err := client.ParsePublicKey(strings.ToLower(v)); err != nil {
		return errInvalid("field %s: %v", field, err)
	}
	return nil
}

// checkCIDR accepts an IPv4 or IPv6 prefix without host bits: 10.0.0.1/8
// most likely means a mistake, and the enforcer would read it as 10.0.0.0/8.
// cidr is required here, not through requireFields, which would also
// demand the optional rules array.
func checkCIDR(field, v string) *apiError {
	if v == "" { // absent, null or empty: no block either way
		return errInvalid("missing required field %s (an IPv4 or IPv6 CIDR block such as 10.0.0.0/8)", field)
	}
	p, err := netip.ParsePrefix(v)
	if err != nil {
		if a, aerr := netip.ParseAddr(v); aerr == nil {
			return errInvalid("field %s: %q is an address, not a CIDR block; did you mean %s", field, v, netip.PrefixFrom(a, a.BitLen()))
		}
		return errInvalid("field %s: %q is not an IPv4 or IPv6 CIDR block (e.g. 10.0.0.0/8 or 2001:db8::/32)", field, v)
	}
	if m := p.Masked(); m != p {
		return errInvalid("field %s: %s has host bits set; did you mean %s", field, v, m)
	}
	return nil
}
