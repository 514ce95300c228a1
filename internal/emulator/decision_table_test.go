package emulator

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/policysettest"
)

// TestDecisionTable runs the shared table of decisions through the
// emulator as a service would see it: the policies are created, the request
// is submitted as a real activity by its first approver and approved by
// each next one, and the activity's status and recorded evaluations must
// be the decision the table wants. The engine's and the policy_decision
// function's suites run the same table.
func TestDecisionTable(t *testing.T) {
	cases := policysettest.Load(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { newDecisionCase(t, c).run(t) })
	}
}

// decisionCase is one case of the table in an emulator of its own.
type decisionCase struct {
	c       policysettest.Case
	srv     *Server
	roots   []*client.Client          // the root users, who set the case up
	clients map[string]*client.Client // every approver's, by user id
	ids     map[string]string         // placeholder ids of the table → the emulator's ids
}

// newDecisionCase starts an emulator whose users are the case's approvers
// (root users where the case's root quorum names them), at the case's time.
func newDecisionCase(t *testing.T, c policysettest.Case) *decisionCase {
	t.Helper()
	keys := map[string]*client.APIKey{}
	keyOf := func(id string) *client.APIKey {
		if keys[id] == nil {
			k := clienttest.NewAPIKey(t)
			keys[id] = k
		}
		return keys[id]
	}
	var rootIDs []string
	threshold := 0
	if q := c.Request.RootQuorum; q != nil {
		rootIDs, threshold = q.UserIDs, q.Threshold
	}
	e := newTestEmulator(t, func(o *Options) {
		if rootIDs != nil {
			o.RootUsers, o.RootQuorum = nil, threshold
			for _, id := range rootIDs {
				o.RootUsers = append(o.RootUsers, RootUser{UserID: id, UserName: id, APIPublicKey: keyOf(id).PublicKeyHex()})
			}
		}
		if c.Request.Time != "" {
			at, err := time.Parse(time.RFC3339, c.Request.Time)
			if err != nil {
				t.Fatal(err)
			}
			// The clients stamp with the real time: the window must span
			// the distance to the case's.
			o.Now, o.LivenessWindow = func() time.Time { return at }, 100*365*24*time.Hour
		}
		o.Fixtures = &Fixtures{}
		for _, a := range c.Request.Approvers {
			if a.Alias != "" {
				t.Fatalf("approver %s has an alias: the emulator's users have none", a.ID)
			}
			if !slices.Contains(rootIDs, a.ID) {
				o.Fixtures.Users = append(o.Fixtures.Users, FixtureUser{UserID: a.ID, UserName: a.ID, UserEmail: a.Email, UserTags: a.Tags,
					APIKeys: []FixtureAPIKey{{APIKeyName: a.ID + " key", PublicKey: keyOf(a.ID).PublicKeyHex()}}})
			}
		}
	})
	d := &decisionCase{c: c, srv: e.srv, clients: map[string]*client.Client{}, ids: map[string]string{}}
	for id, k := range keys {
		d.clients[id] = clientFor(t, e.http.URL, k)
	}
	if rootIDs == nil {
		d.roots = []*client.Client{e.client}
	}
	for _, id := range rootIDs {
		d.roots = append(d.roots, d.clients[id])
	}
	return d
}

// asRoots runs a setup activity: the first root user submits it and the
// others approve it until it completes; it returns the result under key.
func asRoots[R any](t *testing.T, d *decisionCase, key string, submit func(*client.Client) (*client.Submitted[R], error)) R {
	t.Helper()
	got, err := submit(d.roots[0])
	if err == nil {
		return got.Result
	}
	var needed *client.ConsensusNeededError
	if !errors.As(err, &needed) {
		t.Fatalf("setup: %v", err)
	}
	var out R
	for _, c := range d.roots[1:] {
		nextMillisecond()
		act, err := c.ApproveActivity(t.Context(), client.VoteParams{Fingerprint: needed.Fingerprint})
		if err != nil {
			t.Fatalf("setup vote: %v", err)
		}
		if act.Status == client.StatusCompleted {
			if err := json.Unmarshal(act.Result[key], &out); err != nil {
				t.Fatal(err)
			}
			return out
		}
	}
	t.Fatalf("setup activity %s did not complete with every root user's approval", needed.ActivityID)
	return out
}

// setUp creates the case's key, its tags and the policies, and learns the
// ids that replace the table's placeholders.
func (d *decisionCase) setUp(t *testing.T) {
	if k := d.c.Request.PrivateKey; k != nil {
		tagIDs := []string{}
		for _, tag := range k.Tags {
			res := asRoots(t, d, client.OpCreatePrivateKeyTag.ResultKey, func(c *client.Client) (*client.Submitted[client.CreatePrivateKeyTagResult], error) {
				return c.CreatePrivateKeyTag(t.Context(), client.CreatePrivateKeyTagParams{PrivateKeyTagName: tag, PrivateKeyIDs: []string{}})
			})
			d.ids[tag] = res.PrivateKeyTagID
			tagIDs = append(tagIDs, res.PrivateKeyTagID)
		}
		res := asRoots(t, d, client.OpCreatePrivateKeys.ResultKey, func(c *client.Client) (*client.Submitted[client.CreatePrivateKeysResult], error) {
			return c.CreatePrivateKeys(t.Context(), client.CreatePrivateKeysParams{PrivateKeys: []client.PrivateKeyParams{{
				PrivateKeyName: k.Label, Curve: "CURVE_SECP256K1", PrivateKeyTags: tagIDs, AddressFormats: []string{"ADDRESS_FORMAT_ETHEREUM"}}}})
		})
		d.ids[k.ID] = res.PrivateKeys[0].PrivateKeyID
		// The key's Ethereum address, lower-case as policies compare it.
		// The two placeholders do not contain each other, so the order
		// in which real replaces them does not matter.
		d.ids[addressPlaceholder(k.ID)] = strings.ToLower(res.PrivateKeys[0].Addresses[0].Address)
	}
	if len(d.c.Policies) == 0 {
		return
	}
	params := client.CreatePoliciesParams{}
	for _, p := range d.c.Policies {
		params.Policies = append(params.Policies, client.PolicyParams{PolicyName: p.Name, Effect: p.Effect, Notes: "",
			Condition: d.real(p.Condition), Consensus: d.real(p.Consensus), Time: d.real(p.Time)})
	}
	asRoots(t, d, client.OpCreatePolicies.ResultKey, func(c *client.Client) (*client.Submitted[client.CreatePoliciesResult], error) {
		return c.CreatePolicies(t.Context(), params)
	})
}

// addressPlaceholder is how the table writes the address of a key whose
// id placeholder is keyID: address-of-key-hot for key-hot-placeholder.
func addressPlaceholder(keyID string) string {
	return "address-of-" + strings.TrimSuffix(keyID, "-placeholder")
}

// real replaces the table's placeholder ids in s with the emulator's.
func (d *decisionCase) real(s string) string {
	for placeholder, id := range d.ids {
		s = strings.ReplaceAll(s, placeholder, id)
	}
	return s
}

// submit sends the case's activity as c, by its type. The activity is the
// one submitted when it completed at once.
func (d *decisionCase) submit(t *testing.T, c *client.Client) (client.Activity, error) {
	ctx, r := t.Context(), d.c.Request
	param := func(name string) string { s, _ := r.Params[name].(string); return s }
	switch r.Type {
	case client.OpCreatePrivateKeyTag.Type:
		return completed(c.CreatePrivateKeyTag(ctx, client.CreatePrivateKeyTagParams{PrivateKeyTagName: "the case's tag", PrivateKeyIDs: []string{}}))
	case client.OpSignRawPayload.Type:
		payload := "00"
		if param("encoding") == encodingEIP712 {
			payload = caseTypedData(t, d.caseKeyword(t, "eip_712"))
		}
		return completed(c.SignRawPayload(ctx, client.SignRawPayloadParams{SignWith: d.ids[r.PrivateKey.ID], Payload: payload,
			Encoding: param("encoding"), HashFunction: param("hash_function")}))
	case client.OpSignTransaction.Type:
		if param("type") != txTypeEthereum {
			t.Fatalf("the emulator's suite builds %s transactions only, not %q", txTypeEthereum, param("type"))
		}
		return completed(c.SignTransaction(ctx, client.SignTransactionParams{SignWith: d.ids[r.PrivateKey.ID],
			UnsignedTransaction: caseUnsignedTx(t, d.caseKeyword(t, "tx")), Type: txTypeEthereum}))
	case client.OpCreatePolicies.Type:
		return completed(c.CreatePolicies(ctx, client.CreatePoliciesParams{Policies: []client.PolicyParams{{PolicyName: "the case's policy",
			Effect: client.EffectAllow}}}))
	case client.OpUpdateOrganizationName.Type:
		return completed(c.UpdateOrganizationName(ctx, client.UpdateOrganizationNameParams{OrganizationName: "Renamed by the case"}))
	}
	t.Fatalf("the emulator's suite cannot submit %s: add it to decisionCase.submit or choose a type it can", r.Type)
	return client.Activity{}, nil
}

// completed is the activity of a call that completed it, and the call's
// error otherwise.
func completed[R any](got *client.Submitted[R], err error) (client.Activity, error) {
	if err != nil {
		return client.Activity{}, err
	}
	return *got.Activity, nil
}

// run sets the case up, submits its request, votes with each next
// approver while the activity waits, and compares the outcome.
func (d *decisionCase) run(t *testing.T) {
	d.setUp(t)
	approvers := d.c.Request.Approvers
	act, err := d.submit(t, d.clients[approvers[0].ID])
	for i, a := range approvers[1:] {
		var needed *client.ConsensusNeededError
		if !errors.As(err, &needed) {
			t.Fatalf("after %d approver(s) the activity is decided already (%v): the emulator cannot show the decision with %s; "+
				"make every approver before the last leave it waiting", i+1, err, a.ID)
		}
		nextMillisecond()
		got, verr := d.clients[a.ID].ApproveActivity(t.Context(), client.VoteParams{Fingerprint: needed.Fingerprint})
		if verr != nil {
			t.Fatalf("%s's approval: %v", a.ID, verr)
		}
		act, err = *got, activityErr(got)
	}
	id := d.check(t, err, act)
	d.checkOutcomes(t, id)
	d.checkParsed(t, id)
}

// caseKeyword is the case's eth keyword name (tx, eip_712), placeholders
// replaced.
func (d *decisionCase) caseKeyword(t *testing.T, name string) map[string]any {
	t.Helper()
	m, ok := d.c.Request.Eth[name].(map[string]any)
	if !ok {
		t.Fatalf("the case's request has no eth.%s to build its %s from", name, d.c.Request.Type)
	}
	out := map[string]any{}
	for k, v := range m {
		if s, ok := v.(string); ok {
			v = d.real(s)
		}
		out[k] = v
	}
	return out
}

// activityErr is the error a client call gives for an activity as voted:
// none once it completed.
func activityErr(a *client.Activity) error {
	switch a.Status {
	case client.StatusCompleted:
		return nil
	case client.StatusConsensusNeeded:
		return &client.ConsensusNeededError{ActivityID: a.ID, Type: a.Type, Status: a.Status, Fingerprint: a.Fingerprint}
	}
	return &client.ActivityError{ActivityID: a.ID, Type: a.Type, Status: a.Status, Fingerprint: a.Fingerprint, Failure: a.Failure}
}
