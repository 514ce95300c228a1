package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// Lost creates of every resource that creates, and of creates that wait
// for approval: each resolves to exactly one object.

// serviceIDs is the ids the service holds of each resource type that
// creates through activities (policies aside).
func serviceIDs(t *testing.T, e *accEmulator) map[string][]string {
	t.Helper()
	ctx := t.Context()
	tags, err := e.client.ListPrivateKeyTags(ctx, client.ListPrivateKeyTagsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	hooks, err := e.client.ListWebhookEndpoints(ctx, client.ListWebhookEndpointsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	oauth, err := e.client.GetOauthProviders(ctx, client.GetOauthProvidersRequest{UserID: "user-root"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, x := range tags.PrivateKeyTags {
		out["custody_private_key_tag"] = append(out["custody_private_key_tag"], x.TagID)
	}
	for _, x := range hooks.WebhookEndpoints {
		out["custody_webhook_endpoint"] = append(out["custody_webhook_endpoint"], x.EndpointID)
	}
	for _, x := range oauth.OauthProviders {
		out["custody_oauth_provider"] = append(out["custody_oauth_provider"], x.ProviderID)
	}
	return out
}

// TestAccLostAnswers_everyResourceThatCreates: a private key tag, a webhook
// endpoint and an OAuth provider whose creates all lose their answers
// after the service made them each resolve to exactly one object.
func TestAccLostAnswers_everyResourceThatCreates(t *testing.T) {
	e := newAccEmulator(t)
	config := e.providerBlock("max_retries = 1") + `
resource "custody_private_key_tag" "t" {
  name = "lost-tag"
}

resource "custody_webhook_endpoint" "w" {
  url  = "http://127.0.0.1:9/lost"
  name = "lost-hook"
}

resource "custody_oauth_provider" "o" {
  user_id       = "user-root"
  provider_name = "lost-oauth"
  issuer        = "https://issuer.example.com"
  subject       = "subject-1"
  audience      = "app-1"
}
`
	types := []string{"custody_private_key_tag", "custody_webhook_endpoint", "custody_oauth_provider"}
	exactlyOne := func(s *terraform.State) error {
		held := serviceIDs(t, e)
		for _, typ := range types {
			inState := stateIDsOf(s, typ)
			if len(held[typ]) != 1 || !slices.Equal(held[typ], inState) {
				return fmt.Errorf("%s: the service holds %v and state %v, want the same one", typ, held[typ], inState)
			}
		}
		return nil
	}
	leftNothing := func(*terraform.State) error {
		if held := serviceIDs(t, e); len(held) != 0 {
			return fmt.Errorf("left after destroy: %v", held)
		}
		return nil
	}
	// Both attempts of each of the three creates are dropped.
	accTest(t, lostThenResolved(config, dropFirstAnswers(e, 6),
		regexp.MustCompile(`(?s)(Error creating (private key tag|webhook endpoint|OAuth provider).*may have reached\s+the\s+service.*){3}`),
		func() {
			e.srv.SetFaults(emulator.Faults{})
			for _, typ := range types {
				if n := len(serviceIDs(t, e)[typ]); n != 1 {
					t.Fatalf("%s: the lost create made %d objects, want 1", typ, n)
				}
			}
		}, exactlyOne, leftNothing))
}

// TestAccLostAnswers_whileWaitingForApproval: a create that needs a second
// root approval loses its answer; the activity waits. The next plan keeps
// the placeholder (the activity has made nothing yet), and the apply's
// replacement deletes nothing and adopts that activity instead of
// submitting a second one; it completes once approved.
func TestAccLostAnswers_whileWaitingForApproval(t *testing.T) {
	e, approver := policyConsensusEmulator(t)
	config := e.providerBlock("max_retries = 1") + fmt.Sprintf(policyConsensusConfig, "")
	var approving sync.WaitGroup
	t.Cleanup(approving.Wait)
	accTest(t, resource.TestCase{
		CheckDestroy: policyTestCheckDestroy(e),
		Steps: []resource.TestStep{
			{
				PreConfig:   dropFirstAnswers(e, 2),
				Config:      config,
				ExpectError: lostAnswerError,
			},
			{
				PreConfig: func() {
					e.srv.SetFaults(emulator.Faults{})
					// Approve only once the provider polls the activity it
					// adopted: the refresh must meet it still waiting.
					polls := e.srv.RequestCounts()["query/get_activity"]
					approving.Add(1)
					go func() {
						defer approving.Done()
						for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
							if e.srv.RequestCounts()["query/get_activity"] > polls {
								pending, err := policyConsensusActivities(approver, client.OpCreatePolicies.Type, client.StatusConsensusNeeded)
								if err == nil && len(pending) == 1 {
									_, err = approver.ApproveActivity(context.Background(), client.VoteParams{Fingerprint: pending[0].Fingerprint})
								}
								if err != nil {
									t.Errorf("approving: %v", err)
								}
								return
							}
						}
						t.Error("the provider never polled the waiting activity")
					}()
				},
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					policyConsensusCount(e, 1),
					// The placeholder had nothing to delete.
					accRequests(e, "the test", map[string]int{"submit/delete_policy": 0})),
			},
			{
				// Someone must approve the delete at destroy.
				PreConfig: func() { policyStartVoter(t, approver, true) },
				Config:    config,
				PlanOnly:  true,
			},
		},
	})
}

// TestAccAdoption_identicalBodiesTakeOneEach: two instances with identical
// configurations time out waiting for approval, as two activities
// (batching off) or as the two items of one batch; the activities are then
// approved. The next apply adopts them, one object each, never the same
// one twice: two policies, each in state once, and no create submitted
// again.
func TestAccAdoption_identicalBodiesTakeOneEach(t *testing.T) {
	for _, tc := range []struct {
		name, provider string
		activities     int
	}{
		{"two activities", "batching = { enabled = false }", 2},
		{"one batch", patientBatching, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, approver := policyConsensusEmulator(t)
			config := e.providerBlock(tc.provider) + timingOutPolicies(2, "twin under consensus")
			accTest(t, resource.TestCase{
				CheckDestroy: policyTestCheckDestroy(e),
				Steps: []resource.TestStep{
					{
						Config:      config,
						ExpectError: regexp.MustCompile(`(?s)still\s+waits\s+for\s+approval.*still\s+waits\s+for\s+approval`),
					},
					{
						PreConfig: func() {
							pending, err := policyConsensusActivities(approver, client.OpCreatePolicies.Type, client.StatusConsensusNeeded)
							if err != nil || len(pending) != tc.activities {
								t.Fatalf("waiting creates: %d, %v; want %d", len(pending), err, tc.activities)
							}
							for _, act := range pending {
								if _, err := approver.ApproveActivity(context.Background(), client.VoteParams{Fingerprint: act.Fingerprint}); err != nil {
									t.Fatal(err)
								}
							}
						},
						Config: config,
						Check: func(s *terraform.State) error {
							ids := stateIDsOf(s, "custody_policy")
							held := emulatorPolicyIDs(t, e)
							acts, err := policyConsensusActivities(e.client, client.OpCreatePolicies.Type)
							if err != nil || len(acts) != tc.activities || len(ids) != 2 || ids[0] == ids[1] || !slices.Equal(ids, held) {
								return fmt.Errorf("state %v, service %v, %d create activities (%v): want the two approved, one each", ids, held, len(acts), err)
							}
							return nil
						},
					},
					{
						PreConfig: func() { policyStartVoter(t, approver, true) },
						Config:    config,
						PlanOnly:  true,
					},
				},
			})
		})
	}
}

// stateIDsOf is the ids of the instances of typ in s, sorted.
func stateIDsOf(s *terraform.State, typ string) []string {
	var ids []string
	for _, rs := range s.RootModule().Resources {
		if rs.Type == typ {
			ids = append(ids, rs.Primary.ID)
		}
	}
	slices.Sort(ids)
	return ids
}
