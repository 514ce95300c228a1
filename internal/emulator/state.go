package emulator

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/activityrequest"
	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// stateVersion is bumped when the file format changes incompatibly.
const stateVersion = 1

// orgAllowlistKey keys the organization-level allowlist in state.Allowlists;
// key-level allowlists are keyed by the key's public key.
const orgAllowlistKey = "organization"

// state is everything the service knows. It is written to the state file
// as JSON, so every field is exported and plain.
type state struct {
	Version          int                  `json:"version"`
	Organization     orgRecord            `json:"organization"`
	SubOrganizations map[string]orgRecord `json:"subOrganizations"`
	Users            []*userRecord        `json:"users"`
	RootQuorum       int                  `json:"rootQuorum"`
	WebhookKeySeed   []byte               `json:"webhookKeySeed"`
	WebhookKeyID     string               `json:"webhookKeyId"`

	Policies         map[string]*client.Policy          `json:"policies"`
	Allowlists       map[string]*allowlistRecord        `json:"allowlists"`
	OauthProviders   map[string]*oauthProviderRecord    `json:"oauthProviders"`
	PrivateKeys      map[string]*privateKeyRecord       `json:"privateKeys"`
	Tags             map[string]*tagRecord              `json:"tags"`
	WebhookEndpoints map[string]*client.WebhookEndpoint `json:"webhookEndpoints"`
	Otps             map[string]*otpRecord              `json:"otps"`

	Activities        map[string]*activityRecord                 `json:"activities,omitempty"`        // see encodeState
	ActivityOrder     []string                                   `json:"activityOrder"`               // creation order
	Fingerprints      map[string]string                          `json:"fingerprints"`                // submit body hash → activity id
	VoteFingerprints  map[string]string                          `json:"voteFingerprints"`            // vote body hash → voted activity id
	PolicyEvaluations map[string][]client.PolicyEvaluationRecord `json:"policyEvaluations,omitempty"` // by activity id; see encodeState

	// Read-only data seeded by fixtures.
	MfaPolicies             map[string][]client.MfaPolicy                      `json:"mfaPolicies"` // by user id
	EarnVaults              []client.EarnEnabledVault                          `json:"earnVaults"`
	EarnPositions           map[string][]client.EarnPosition                   `json:"earnPositions"` // by wallet address
	AppStatuses             map[string]client.AppStatus                        `json:"appStatuses"`
	SendTransactionStatuses map[string]client.GetSendTransactionStatusResponse `json:"sendTransactionStatuses"`
}

type orgRecord struct {
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	CreatedAt client.Timestamp `json:"createdAt"`
}

type userRecord struct {
	UserID    string           `json:"userId"`
	UserName  string           `json:"userName"`
	Email     string           `json:"email,omitempty"`
	Tags      []string         `json:"tags,omitempty"` // user tag ids, as consensus expressions see them
	Root      bool             `json:"root"`
	APIKeys   []apiKeyRecord   `json:"apiKeys"`
	CreatedAt client.Timestamp `json:"createdAt"`
	Generated bool             `json:"generated,omitempty"` // made by GenerateHistory, not by fixtures
}

type apiKeyRecord struct {
	APIKeyID  string           `json:"apiKeyId"`
	Name      string           `json:"name"`
	PublicKey string           `json:"publicKey"`
	CreatedAt client.Timestamp `json:"createdAt"`
	Generated bool             `json:"generated,omitempty"` // made by GenerateHistory, not by fixtures
}

type allowlistRecord struct {
	PublicKey         string                   `json:"publicKey,omitempty"`
	Enabled           bool                     `json:"enabled"`
	OnEvaluationError string                   `json:"onEvaluationError"`
	Rules             []client.IPAllowlistRule `json:"rules"`
}

type oauthProviderRecord struct {
	UserID string `json:"userId"`
	client.OauthProvider
}

type privateKeyRecord struct {
	PrivateKeyID   string           `json:"privateKeyId"`
	PrivateKeyName string           `json:"privateKeyName"`
	Curve          string           `json:"curve"`
	PublicKey      string           `json:"publicKey"`
	Secret         string           `json:"secret"` // hex; the emulator signs with it
	Addresses      []client.Address `json:"addresses"`
	Tags           []string         `json:"tags"`
	CreatedAt      client.Timestamp `json:"createdAt"`
	UpdatedAt      client.Timestamp `json:"updatedAt"`
}

type tagRecord struct {
	client.Tag
	PrivateKeyIDs []string `json:"privateKeyIds"`
}

type otpRecord struct {
	OtpID     string    `json:"otpId"`
	Contact   string    `json:"contact"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// activityRecord is an activity and what is needed to run it later (after
// consensus): the operation and its parameters as submitted.
type activityRecord struct {
	Activity client.Activity `json:"activity"`
	Op       string          `json:"op"`
	Params   json.RawMessage `json:"params"`

	// enc is the record's JSON once it is finished, as of encKey.
	enc    []byte
	encKey string
	// decoded is the payload decoded from Params (see payload); nil until
	// first needed, so also after a restart.
	decoded *activityrequest.Payload
}

func newState(opts Options, now time.Time) *state {
	ts := client.NewTimestamp(now)
	st := &state{
		Version:      stateVersion,
		Organization: orgRecord{ID: opts.OrganizationID, Name: opts.OrganizationName, CreatedAt: ts},
		RootQuorum:   opts.RootQuorum,
	}
	for i, u := range opts.RootUsers {
		id, name := u.UserID, u.UserName
		if id == "" {
			id = newID()
		}
		if name == "" {
			name = DefaultRootUserName
			if i > 0 {
				name = fmt.Sprintf("%s-%d", DefaultRootUserName, i+1)
			}
		}
		st.Users = append(st.Users, &userRecord{UserID: id, UserName: name, Root: true, CreatedAt: ts,
			APIKeys: []apiKeyRecord{{APIKeyID: newID(), Name: name + " API key", PublicKey: strings.ToLower(u.APIPublicKey), CreatedAt: ts}}})
	}
	seed := make([]byte, ed25519.SeedSize)
	_, _ = rand.Read(seed)
	st.WebhookKeySeed = seed
	st.WebhookKeyID = "emulator-" + hex.EncodeToString(seed[:4])
	st.ensureMaps()
	return st
}

// ensureMaps gives every map a value, so that handlers never write to nil
// maps, also after loading a file written with empty maps omitted.
func (st *state) ensureMaps() {
	initMap(&st.SubOrganizations)
	initMap(&st.Policies)
	initMap(&st.Allowlists)
	initMap(&st.OauthProviders)
	initMap(&st.PrivateKeys)
	initMap(&st.Tags)
	initMap(&st.WebhookEndpoints)
	initMap(&st.Otps)
	initMap(&st.Activities)
	initMap(&st.Fingerprints)
	initMap(&st.VoteFingerprints)
	initMap(&st.PolicyEvaluations)
	initMap(&st.MfaPolicies)
	initMap(&st.EarnPositions)
	initMap(&st.AppStatuses)
	initMap(&st.SendTransactionStatuses)
}

func initMap[K comparable, V any](m *map[K]V) {
	if *m == nil {
		*m = map[K]V{}
	}
}

func (st *state) userByKey(publicKey string) *userRecord {
	for _, u := range st.Users {
		for _, k := range u.APIKeys {
			if k.PublicKey == publicKey {
				return u
			}
		}
	}
	return nil
}

func (st *state) userByID(id string) *userRecord {
	for _, u := range st.Users {
		if u.UserID == id {
			return u
		}
	}
	return nil
}

// newID makes a random UUID (version 4), the shape of the service's ids.
func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
