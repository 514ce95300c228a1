package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Fixtures seed what no activity in scope creates. Their JSON form is the
// -fixtures file of custody-emulator (see examples/emulator/fixtures.json).
type Fixtures struct {
	// SubOrganizations may be named in request bodies by the parent's keys;
	// earn fee fields are hidden from them.
	SubOrganizations []FixtureOrganization `json:"subOrganizations,omitempty"`
	// Users are non-root users (owners of OAuth providers, MFA policies;
	// with API keys, requesters and approvers governed by policies).
	Users []FixtureUser `json:"users,omitempty"`
	// MfaPolicies by user id.
	MfaPolicies map[string][]client.MfaPolicy `json:"mfaPolicies,omitempty"`
	EarnVaults  []client.EarnEnabledVault     `json:"earnVaults,omitempty"`
	// EarnPositions by wallet address.
	EarnPositions map[string][]client.EarnPosition `json:"earnPositions,omitempty"`
	AppStatuses   []client.AppStatus               `json:"appStatuses,omitempty"`
	// SendTransactionStatuses by send-transaction status id.
	SendTransactionStatuses map[string]client.GetSendTransactionStatusResponse `json:"sendTransactionStatuses,omitempty"`
}

// FixtureOrganization is a sub-organization.
type FixtureOrganization struct {
	OrganizationID string `json:"organizationId"`
	Name           string `json:"name"`
}

// FixtureUser is a non-root user. With API keys it can call the service;
// policies then decide what it may do, and consensus expressions see its
// email and tags.
type FixtureUser struct {
	UserID    string          `json:"userId"`
	UserName  string          `json:"userName"`
	UserEmail string          `json:"userEmail,omitempty"`
	UserTags  []string        `json:"userTags,omitempty"`
	APIKeys   []FixtureAPIKey `json:"apiKeys,omitempty"`
}

// FixtureAPIKey is an API key of a fixture user.
type FixtureAPIKey struct {
	APIKeyName string `json:"apiKeyName"`
	PublicKey  string `json:"publicKey"` // compressed P-256, hex
}

// LoadFixtures reads a fixtures file strictly: an unknown field is an error.
func LoadFixtures(path string) (*Fixtures, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("emulator: reading fixtures: %w", err)
	}
	var f Fixtures
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("emulator: fixtures file %s: %w", path, err)
	}
	return &f, nil
}

// apply copies the fixtures into a new state.
func (f *Fixtures) apply(st *state, now time.Time) error {
	ts := client.NewTimestamp(now)
	for _, o := range f.SubOrganizations {
		if o.OrganizationID == "" || o.OrganizationID == st.Organization.ID {
			return fmt.Errorf("emulator: fixtures: sub-organization id %q is empty or the organization's own", o.OrganizationID)
		}
		st.SubOrganizations[o.OrganizationID] = orgRecord{ID: o.OrganizationID, Name: o.Name, CreatedAt: ts}
	}
	for _, u := range f.Users {
		if u.UserID == "" || st.userByID(u.UserID) != nil {
			return fmt.Errorf("emulator: fixtures: user id %q is empty or taken", u.UserID)
		}
		rec := &userRecord{UserID: u.UserID, UserName: u.UserName, Email: u.UserEmail, Tags: u.UserTags, APIKeys: []apiKeyRecord{}, CreatedAt: ts}
		for _, k := range u.APIKeys {
			pub := strings.ToLower(k.PublicKey)
			if _, err := client.ParsePublicKey(pub); err != nil {
				return fmt.Errorf("emulator: fixtures: user %s: API key %q: %w", u.UserID, k.APIKeyName, err)
			}
			if st.userByKey(pub) != nil {
				return fmt.Errorf("emulator: fixtures: user %s: API key %s belongs to another user already", u.UserID, pub)
			}
			rec.APIKeys = append(rec.APIKeys, apiKeyRecord{APIKeyID: newID(), Name: k.APIKeyName, PublicKey: pub, CreatedAt: ts})
		}
		st.Users = append(st.Users, rec)
	}
	for userID, ps := range f.MfaPolicies {
		if st.userByID(userID) == nil {
			return fmt.Errorf("emulator: fixtures: MFA policies name unknown user %q (add it under users)", userID)
		}
		st.MfaPolicies[userID] = ps
	}
	if err := f.checkEnums(); err != nil {
		return err
	}
	st.EarnVaults = f.EarnVaults
	for addr, ps := range f.EarnPositions {
		st.EarnPositions[addr] = ps
	}
	for _, a := range f.AppStatuses {
		if a.AppID == "" {
			return fmt.Errorf("emulator: fixtures: an app status has no appId")
		}
		st.AppStatuses[a.AppID] = a
	}
	for id, tx := range f.SendTransactionStatuses {
		st.SendTransactionStatuses[id] = tx
	}
	return nil
}

// heldBy checks, when a state file is loaded with fixtures (the documented
// start command, run a second time), that the state already holds exactly
// what f seeds. Then f is not applied again: the state is kept as it is,
// with everything made in it since. Any other state is an error, never a
// merge: applying f again would duplicate or overwrite what the state
// holds, and ignoring f would serve other data than the file named.
func (f *Fixtures) heldBy(st *state, now time.Time, statePath string) error {
	// What f seeds into this organization, applied to a state holding only
	// its root users, which apply reads (taken ids and keys), never changes.
	seed := &state{Organization: st.Organization}
	seed.ensureMaps()
	for _, u := range st.Users {
		if u.Root {
			seed.Users = append(seed.Users, u)
		}
	}
	if err := f.apply(seed, now); err != nil {
		return err
	}
	want, got := seededBy(seed), seededBy(st)
	var differ []string
	empty := true
	for _, name := range slices.Sorted(maps.Keys(want)) {
		w, err := seededJSON(want[name])
		if err != nil {
			return err
		}
		g, err := seededJSON(got[name])
		if err != nil {
			return err
		}
		if !bytes.Equal(w, g) {
			differ = append(differ, name)
		}
		empty = empty && string(g) == "null"
	}
	const remedy = "fixtures are loaded only into a new state file: start without the fixtures to keep this state as it is, " +
		"or with a new state file to load them"
	switch {
	case len(differ) == 0:
		return nil
	case empty:
		return fmt.Errorf("emulator: state file %s was made without fixtures; %s", statePath, remedy)
	}
	return fmt.Errorf("emulator: state file %s was seeded with other fixtures than these (%s differ); %s", statePath, strings.Join(differ, ", "), remedy)
}

// seededBy is what fixtures put into st, by the fixtures file's member
// names: without what the emulator makes up (API key ids, creation times)
// or what the API may change since (a sub-organization's name, so
// sub-organizations count by id), nor what a generated history added.
// Users count by id, in any order.
func seededBy(st *state) map[string]any {
	var users []FixtureUser
	for _, u := range st.Users {
		if u.Root || u.Generated {
			continue
		}
		fu := FixtureUser{UserID: u.UserID, UserName: u.UserName, UserEmail: u.Email, UserTags: u.Tags}
		for _, k := range u.APIKeys {
			if k.Generated {
				continue
			}
			fu.APIKeys = append(fu.APIKeys, FixtureAPIKey{APIKeyName: k.Name, PublicKey: k.PublicKey})
		}
		users = append(users, fu)
	}
	slices.SortFunc(users, func(a, b FixtureUser) int { return strings.Compare(a.UserID, b.UserID) })
	return map[string]any{
		"subOrganizations": slices.Sorted(maps.Keys(st.SubOrganizations)), "users": users, "mfaPolicies": st.MfaPolicies,
		"earnVaults": st.EarnVaults, "earnPositions": st.EarnPositions, "appStatuses": st.AppStatuses,
		"sendTransactionStatuses": st.SendTransactionStatuses,
	}
}

// seededJSON encodes v for comparison, with an empty list or object the
// same as none.
func seededJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("emulator: comparing fixtures: %w", err)
	}
	if s := string(b); s == "[]" || s == "{}" {
		return []byte("null"), nil
	}
	return b, nil
}

// checkEnums refuses enum values the service never returns, so that a typo
// in a fixtures file is an error rather than data served as real.
func (f *Fixtures) checkEnums() error {
	providers := []string{"", client.EarnProviderProtocolA, client.EarnProviderProtocolB}
	for i, v := range f.EarnVaults {
		if !slices.Contains(providers, v.Provider) {
			return fmt.Errorf("emulator: fixtures: earnVaults[%d].provider %q is not one of %v", i, v.Provider, providers[1:])
		}
	}
	for addr, ps := range f.EarnPositions {
		for i, p := range ps {
			if !slices.Contains(providers, p.Provider) {
				return fmt.Errorf("emulator: fixtures: earnPositions[%s][%d].provider %q is not one of %v", addr, i, p.Provider, providers[1:])
			}
		}
	}
	for user, ps := range f.MfaPolicies {
		for i, p := range ps {
			for j, step := range p.RequiredAuthenticationMethods {
				for k, m := range step.Any {
					if !slices.Contains(authenticationTypes, m.Type) {
						return fmt.Errorf("emulator: fixtures: mfaPolicies[%s][%d].requiredAuthenticationMethods[%d].any[%d].type %q is not one of %v", user, i, j, k, m.Type, authenticationTypes)
					}
				}
			}
		}
	}
	return nil
}

var authenticationTypes = []string{"AUTHENTICATION_TYPE_EMAIL_OTP", "AUTHENTICATION_TYPE_SMS_OTP", "AUTHENTICATION_TYPE_PASSKEY",
	"AUTHENTICATION_TYPE_API_KEY", "AUTHENTICATION_TYPE_OAUTH", "AUTHENTICATION_TYPE_SESSION"}
