package provider

import (
	"context"
	"errors"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// Two policies exist before the rename: one whose condition matches the
// rename (evaluated, OUTCOME_ALLOW) and one that does not apply to it (left
// out of the evaluation). depends_on makes the rename wait for both.
const policyEvaluationsTestResources = `
resource "custody_policy" "allow_rename" {
  name      = "allow renames"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME'"
  notes     = "evaluated for the rename"
}

resource "custody_policy" "signing_only" {
  name      = "deny signing"
  effect    = "EFFECT_DENY"
  condition = "activity.resource == 'PRIVATE_KEY'"
  notes     = "does not apply to a rename"
}

resource "custody_organization_name" "test" {
  name       = "Evaluated Org"
  depends_on = [custody_policy.allow_rename, custody_policy.signing_only]
}
`

// The evaluations are those of the rename custody_organization_name
// submitted in step 1, looked up by type in step 2 (the resource does not
// expose its activity id).
func TestAccPolicyEvaluationsDataSource_readsResourceActivity(t *testing.T) {
	e := newAccEmulator(t)
	var activityID string
	const ds, act = "data.custody_policy_evaluations.test", "data.custody_activity.test"
	first := tfjsonpath.New("evaluations").AtSliceIndex(0)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: e.config(policyEvaluationsTestResources)},
			{
				PreConfig: activityTestFind(t, e, "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", &activityID),
				Config: e.config(policyEvaluationsTestResources +
					activityTestRead("activity_id", "custody_policy_evaluations.test", "custody_activity.test")),
				ConfigVariables: config.Variables{"activity_id": activityTestLazyString{&activityID}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("activity_id"), activityTestEquals(&activityID)),
					// One record: the rename had one vote, the requester's.
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("evaluations"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"id":      knownvalue.StringRegexp(accNonBlank),
							"vote_id": knownvalue.StringRegexp(accNonBlank),
							"policy_evaluations": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
								"policy_id": knownvalue.StringRegexp(accNonBlank),
								"outcome":   knownvalue.StringExact("OUTCOME_ALLOW"),
							})}),
							"created_at": knownvalue.StringRegexp(accRFC3339),
						}),
					})),
					statecheck.CompareValuePairs(ds, first.AtMapKey("policy_evaluations").AtSliceIndex(0).AtMapKey("policy_id"),
						"custody_policy.allow_rename", tfjsonpath.New("id"), compare.ValuesSame()),
					statecheck.CompareValuePairs(ds, first.AtMapKey("vote_id"),
						act, tfjsonpath.New("votes").AtSliceIndex(0).AtMapKey("id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue(act, tfjsonpath.New("result"),
						knownvalue.StringExact(`{"updateOrganizationNameResult":{"organizationId":"org-acc","organizationName":"Evaluated Org"}}`)),
				},
			},
		},
	})
}

func TestAccPolicyEvaluationsDataSource_errors(t *testing.T) {
	e := newAccEmulator(t)
	cfg := func(id string) string { return e.dataBlock("custody_policy_evaluations", "activity_id", id) }
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			planFails(cfg(" "), regexp.MustCompile(`must be an activity id`)),
			planFails(cfg("no-such-activity"), regexp.MustCompile(`(?s)Error reading policy evaluations.*get_policy_evaluations for activity\s+no-such-activity.*HTTP\s+404`)),
		},
	})
}

// policyEvaluationsUsers are non-root users with API keys: bob and carol
// tagged treasury, dave an intern. The policies decide what they may do.
func policyEvaluationsUsers(t *testing.T) (func(*emulator.Options), map[string]*client.APIKey) {
	t.Helper()
	keys := map[string]*client.APIKey{}
	var users []emulator.FixtureUser
	for _, u := range []struct{ id, tag string }{{"bob", "tag-treasury"}, {"carol", "tag-treasury"}, {"dave", "tag-interns"}} {
		k := clienttest.NewAPIKey(t)
		keys[u.id] = k
		users = append(users, emulator.FixtureUser{UserID: u.id, UserName: u.id, UserTags: []string{u.tag},
			APIKeys: []emulator.FixtureAPIKey{{APIKeyName: u.id, PublicKey: k.PublicKeyHex()}}})
	}
	return func(o *emulator.Options) { o.Fixtures = &emulator.Fixtures{Users: users} }, keys
}

const policyEvaluationsNonRootPolicies = `
resource "custody_policy" "two_of_treasury" {
  name      = "two of treasury create tags"
  effect    = "EFFECT_ALLOW"
  condition = "activity.kind == 'CREATE_PRIVATE_KEY_TAG'"
  consensus = "approvers.filter(u, u.tags.contains('tag-treasury')).count() >= 2"
}

resource "custody_policy" "no_interns" {
  name      = "interns touch no keys"
  effect    = "EFFECT_DENY"
  condition = "activity.resource == 'PRIVATE_KEY'"
  consensus = "approvers.any(u, u.tags.contains('tag-interns'))"
}
`

// What the policies made of non-root users' activities shows in the data
// source: bob's tag waits for a second treasury approval
// (OUTCOME_REQUIRES_CONSENSUS), then carol's approval allows it
// (OUTCOME_ALLOW); dave's is denied (OUTCOME_DENY_EXPLICIT).
func TestAccPolicyEvaluationsDataSource_nonRootOutcomes(t *testing.T) {
	users, keys := policyEvaluationsUsers(t)
	e := newAccEmulator(t, users)
	var bobs, daves string
	submit := func() {
		bob, carol, dave := accClient(t, e.url, keys["bob"]), accClient(t, e.url, keys["carol"]), accClient(t, e.url, keys["dave"])
		_, err := bob.CreatePrivateKeyTag(context.Background(), client.CreatePrivateKeyTagParams{PrivateKeyTagName: "treasury"})
		var pending *client.ConsensusNeededError
		if !errors.As(err, &pending) {
			t.Fatalf("bob's tag: %v, want it to wait for consensus", err)
		}
		bobs = pending.ActivityID
		if act, err := carol.ApproveActivity(context.Background(), client.VoteParams{Fingerprint: pending.Fingerprint}); err != nil || act.Status != client.StatusCompleted {
			t.Fatalf("carol's approval: %+v %v", act, err)
		}
		_, err = dave.CreatePrivateKeyTag(context.Background(), client.CreatePrivateKeyTagParams{PrivateKeyTagName: "intern"})
		var failed *client.ActivityError
		if !errors.As(err, &failed) || failed.Status != client.StatusFailed {
			t.Fatalf("dave's tag: %v, want it denied", err)
		}
		daves = failed.ActivityID
	}
	const bobDS, daveDS = "data.custody_policy_evaluations.bob", "data.custody_policy_evaluations.dave"
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: e.config(policyEvaluationsNonRootPolicies)},
			{
				PreConfig: submit,
				Config: e.config(policyEvaluationsNonRootPolicies +
					activityTestRead("bob", "custody_policy_evaluations.bob") + activityTestRead("dave", "custody_policy_evaluations.dave")),
				ConfigVariables: config.Variables{"bob": activityTestLazyString{&bobs}, "dave": activityTestLazyString{&daves}},
				Check: resource.ComposeAggregateTestCheckFunc(
					// bob's vote, then carol's: the deny never applied.
					resource.TestCheckResourceAttr(bobDS, "evaluations.#", "2"),
					resource.TestCheckResourceAttr(bobDS, "evaluations.0.policy_evaluations.#", "1"),
					resource.TestCheckResourceAttrPair(bobDS, "evaluations.0.policy_evaluations.0.policy_id", "custody_policy.two_of_treasury", "id"),
					resource.TestCheckResourceAttr(bobDS, "evaluations.0.policy_evaluations.0.outcome", "OUTCOME_REQUIRES_CONSENSUS"),
					resource.TestCheckResourceAttr(bobDS, "evaluations.1.policy_evaluations.#", "1"),
					resource.TestCheckResourceAttr(bobDS, "evaluations.1.policy_evaluations.0.outcome", "OUTCOME_ALLOW"),
					// dave's one vote: both policies apply, the deny wins.
					resource.TestCheckResourceAttr(daveDS, "evaluations.#", "1"),
					resource.TestCheckResourceAttr(daveDS, "evaluations.0.policy_evaluations.#", "2"),
					resource.TestCheckTypeSetElemNestedAttrs(daveDS, "evaluations.0.policy_evaluations.*", map[string]string{"outcome": "OUTCOME_DENY_EXPLICIT"}),
					resource.TestCheckTypeSetElemNestedAttrs(daveDS, "evaluations.0.policy_evaluations.*", map[string]string{"outcome": "OUTCOME_REQUIRES_CONSENSUS"}),
				),
			},
		},
	})
}
