package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// oauthBatchConfig is the OAuth providers of user-root with the given
// subjects, all of one issuer and audience.
func oauthBatchConfig(subjects ...string) string {
	out := ""
	for i, sub := range subjects {
		out += fmt.Sprintf(`
resource "custody_oauth_provider" "p%d" {
  user_id       = "user-root"
  provider_name = "provider %d"
  issuer        = "https://issuer.example.com"
  subject       = %q
  audience      = "app-1"
}
`, i, i, sub)
	}
	return out
}

// TestAccBatchFailsOnlyTheBadItem: three OAuth providers of one user are
// created as one batch, and one of them has the identity of a provider the
// user already has. The service refuses the batch whole; each provider is
// then sent alone, so that only the duplicate fails, with its own error,
// and the other two are created.
func TestAccBatchFailsOnlyTheBadItem(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, resource.TestCase{
		CheckDestroy: oauthProviderTestCount(e, 0),
		Steps: []resource.TestStep{
			{Config: e.config(oauthBatchConfig("taken"))},
			{
				Config: e.config(oauthBatchConfig("taken", "new-1", "taken", "new-2")),
				ExpectError: regexp.MustCompile(`(?s)Error creating OAuth provider.*provider "provider 2" of user user-root.*` +
					`already\s+registered`),
			},
			{
				PreConfig: func() {
					got, err := e.client.GetOauthProviders(context.Background(), client.GetOauthProvidersRequest{UserID: "user-root"})
					if err != nil || len(got.OauthProviders) != 3 {
						t.Fatalf("the user has %+v (%v); want the first provider and the two good ones of the batch", got, err)
					}
					if n := e.srv.RequestCounts()["submit/create_oauth_providers"]; n != 5 {
						t.Errorf("%d create_oauth_providers submits, want 5: the first, the batch, and its 3 items alone", n)
					}
				},
				Config: e.config(oauthBatchConfig("taken", "new-1", "new-3", "new-2")),
				Check:  oauthProviderTestCount(e, 4),
			},
		},
	})
}

// patientBatching gathers a wave across a 200 ms quiet gap instead of the
// default 25 ms. Under -race, beside the other packages' tests on two
// cores, each create's plan at apply (the access review's solving, ~10 ms
// there against ~1 ms in a release build) spreads a wave's creates past
// 25 ms: measured, 2 or 3 batches where one was meant. The tests that
// count batches exactly gather patiently; the default is what the
// benchmark measures.
const patientBatching = `batching = { send_after = "4s" }`

// TestAccTimedOutBatchIsAdopted: three policies go out as one batch that
// needs a second root approval and times out. The next apply adopts that
// batch for each of the three, instead of submitting again, and completes
// once a second root user approves it: one create activity in all.
func TestAccTimedOutBatchIsAdopted(t *testing.T) {
	e, approver := policyConsensusEmulator(t)
	config := e.providerBlock(patientBatching) + timingOutPolicies(3, "batched ${count.index}")
	accTest(t, resource.TestCase{
		CheckDestroy: policyTestCheckDestroy(e),
		Steps: []resource.TestStep{
			{
				Config: config,
				// Every member names the one activity, with its fingerprint.
				ExpectError: regexp.MustCompile(`(?s)(still\s+waits\s+for\s+approval.*fingerprint\s+[0-9a-f]{64}.*){3}`),
			},
			{
				PreConfig: func() {
					pending, err := policyConsensusActivities(approver, client.OpCreatePolicies.Type, client.StatusConsensusNeeded)
					if err != nil || len(pending) != 1 {
						t.Fatalf("%d create activities wait (%v), want the one batch", len(pending), err)
					}
					policyStartVoter(t, approver, true)
				},
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					policyConsensusCount(e, 3),
					// The first batch's submit only.
					accRequests(e, "the test", map[string]int{"submit/create_policies": 1})),
			},
			{Config: config, PlanOnly: true},
		},
	})
}

// timingOutPolicies is n allowing policies named name (which may use
// count.index) whose creates wait 3 s for approval, under the consensus
// emulator's root quorum of two.
func timingOutPolicies(n int, name string) string {
	return fmt.Sprintf(`
resource "custody_policy" "p" {
  count  = %d
  name   = %q
  effect = "EFFECT_ALLOW"
  timeouts = {
    create = "3s"
  }
}
`, n, name)
}
