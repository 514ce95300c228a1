package emulator

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

func init() {
	registerSubmit(client.OpCreateOauthProviders,
		[]string{"userId", "oauthProviders", "oauthProviders[].providerName"}, validateCreateOauthProviders, runCreateOauthProviders)
	registerSubmit(client.OpDeleteOauthProviders,
		[]string{"userId", "providerIds"},
		func(p *client.DeleteOauthProvidersParams) *apiError {
			return checkUniqueIDs("parameters.providerIds", p.ProviderIDs)
		},
		runDeleteOauthProviders)
	registerQuery(client.QueryGetOauthProviders, nil, func(s *Server, who *caller, req *client.GetOauthProvidersRequest) (any, *apiError) {
		userID := req.UserID
		if userID == "" {
			userID = who.UserID
		}
		if s.st.userByID(userID) == nil {
			return nil, errNotFound("user %s not found in organization %s", userID, who.OrganizationID)
		}
		out := []client.OauthProvider{}
		for _, p := range s.st.OauthProviders {
			if p.UserID == userID {
				out = append(out, p.OauthProvider)
			}
		}
		slices.SortFunc(out, func(a, b client.OauthProvider) int {
			return byCreatedThenID(a.CreatedAt, b.CreatedAt, a.ProviderID, b.ProviderID)
		})
		return client.GetOauthProvidersResponse{OauthProviders: out}, nil
	})
}

// oidcIdentity is what makes a provider unique in an organization.
type oidcIdentity struct{ Issuer, Subject, Audience string }

func validateCreateOauthProviders(p *client.CreateOauthProvidersParams) *apiError {
	if strings.TrimSpace(p.UserID) == "" {
		return errInvalid("field parameters.userId must not be empty")
	}
	if len(p.OauthProviders) == 0 {
		return errInvalid("field parameters.oauthProviders must list at least one provider")
	}
	seen := map[oidcIdentity]int{}
	for i, op := range p.OauthProviders {
		id, e := providerIdentity(i, op)
		if e != nil {
			return e
		}
		if j, dup := seen[id]; dup {
			return errInvalid("field parameters.oauthProviders[%d]: same issuer, subject and audience as oauthProviders[%d]", i, j)
		}
		seen[id] = i
	}
	return nil
}

// providerIdentity checks one provider and returns its identity, from the
// claims or read from the token.
func providerIdentity(i int, op client.OauthProviderParams) (oidcIdentity, *apiError) {
	at := fmt.Sprintf("parameters.oauthProviders[%d]", i)
	if e := checkName(at+".providerName", op.ProviderName); e != nil {
		return oidcIdentity{}, e
	}
	switch hasToken, hasClaims := op.OidcToken != "", op.OidcClaims != nil; {
	case hasToken == hasClaims:
		return oidcIdentity{}, errInvalid("field %s: set exactly one of oidcToken and oidcClaims", at)
	case hasClaims:
		c := op.OidcClaims
		for _, f := range []struct{ name, v string }{{"iss", c.Iss}, {"sub", c.Sub}, {"aud", c.Aud}} {
			if strings.TrimSpace(f.v) == "" {
				return oidcIdentity{}, errInvalid("missing required field %s.oidcClaims.%s (it must not be empty)", at, f.name)
			}
		}
		return oidcIdentity{Issuer: c.Iss, Subject: c.Sub, Audience: c.Aud}, nil
	}
	id, err := oidcTokenIdentity(op.OidcToken)
	if err != nil {
		// The message never quotes the token: it is a credential.
		return oidcIdentity{}, errInvalid("field %s.oidcToken: %v", at, err)
	}
	return id, nil
}

// oidcTokenIdentity reads iss, sub and aud from a JWT's payload. The
// emulator does not verify the token's signature or expiry: it holds no
// issuer keys and must work offline, so it checks the shape only.
func oidcTokenIdentity(token string) (oidcIdentity, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return oidcIdentity{}, fmt.Errorf("not a JWT: want three dot-separated base64url parts, got %d", len(parts))
	}
	var decoded [3][]byte
	for i, part := range parts {
		b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(part, "="))
		if err != nil || len(b) == 0 {
			return oidcIdentity{}, fmt.Errorf("not a JWT: part %d is not non-empty base64url", i+1)
		}
		decoded[i] = b
	}
	var header map[string]any
	if json.Unmarshal(decoded[0], &header) != nil || header == nil {
		return oidcIdentity{}, errors.New("not a JWT: the header is not a JSON object")
	}
	var claims struct {
		Iss any             `json:"iss"`
		Sub any             `json:"sub"`
		Aud json.RawMessage `json:"aud"`
	}
	if json.Unmarshal(decoded[1], &claims) != nil {
		return oidcIdentity{}, errors.New("not a JWT: the payload is not a JSON object")
	}
	iss, _ := claims.Iss.(string)
	sub, _ := claims.Sub.(string)
	aud := firstAudience(claims.Aud)
	for _, c := range []struct{ name, v string }{{"iss", iss}, {"sub", sub}, {"aud", aud}} {
		if c.v == "" {
			return oidcIdentity{}, fmt.Errorf("the payload has no %s claim (a non-empty string; aud may be an array of them)", c.name)
		}
	}
	return oidcIdentity{Issuer: iss, Subject: sub, Audience: aud}, nil
}

// firstAudience reads aud as a string or as the first element of an array
// (RFC 7519 allows both).
func firstAudience(raw json.RawMessage) string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil && len(many) > 0 {
		return many[0]
	}
	return ""
}

func runCreateOauthProviders(s *Server, who *caller, p *client.CreateOauthProvidersParams) (any, *client.Status) {
	if s.st.userByID(p.UserID) == nil {
		return nil, notFound("user %s not found in organization %s", p.UserID, who.OrganizationID)
	}
	ids := make([]oidcIdentity, len(p.OauthProviders))
	for i, op := range p.OauthProviders {
		id, e := providerIdentity(i, op) // checked at submit; read again here
		if e != nil {
			return nil, failure(client.CodeInvalidArgument, "%s", e.message)
		}
		for _, existing := range s.st.OauthProviders {
			if (oidcIdentity{existing.Issuer, existing.Subject, existing.Audience}) == id {
				return nil, failure(client.CodeAlreadyExists, "oauthProviders[%d]: an OAuth provider with issuer %q, subject %q and audience %q is already registered (%s, user %s)",
					i, id.Issuer, id.Subject, id.Audience, existing.ProviderID, existing.UserID)
			}
		}
		ids[i] = id
	}
	now := client.NewTimestamp(s.now())
	result := client.ProviderIDsResult{ProviderIDs: []string{}}
	for i, op := range p.OauthProviders {
		// Only the identity is kept: the token itself is a credential and
		// stays in the activity's intent alone, as the service records it.
		rec := &oauthProviderRecord{UserID: p.UserID, OauthProvider: client.OauthProvider{ProviderID: newID(), ProviderName: op.ProviderName,
			Issuer: ids[i].Issuer, Audience: ids[i].Audience, Subject: ids[i].Subject, CreatedAt: now, UpdatedAt: now}}
		s.st.OauthProviders[rec.ProviderID] = rec
		result.ProviderIDs = append(result.ProviderIDs, rec.ProviderID)
	}
	return result, nil
}

// runDeleteOauthProviders deletes all the providers or, when one is not
// the user's, none of them.
func runDeleteOauthProviders(s *Server, who *caller, p *client.DeleteOauthProvidersParams) (any, *client.Status) {
	if s.st.userByID(p.UserID) == nil {
		return nil, notFound("user %s not found in organization %s", p.UserID, who.OrganizationID)
	}
	for _, id := range p.ProviderIDs {
		if rec := s.st.OauthProviders[id]; rec == nil || rec.UserID != p.UserID {
			return nil, notFound("OAuth provider %s not found for user %s", id, p.UserID)
		}
	}
	for _, id := range p.ProviderIDs {
		delete(s.st.OauthProviders, id)
	}
	return client.ProviderIDsResult{ProviderIDs: nonNilSlice(slices.Clone(p.ProviderIDs))}, nil
}
