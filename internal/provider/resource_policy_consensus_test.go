package provider

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// policyConsensusEmulator is an emulator whose activities need two root
// approvals: the provider's key gives one, the returned client (user-2,
// "approver") the other.
func policyConsensusEmulator(t *testing.T) (*accEmulator, *client.Client) {
	t.Helper()
	k2 := clienttest.NewAPIKey(t)
	e := newAccEmulator(t, func(o *emulator.Options) {
		o.RootUsers = append(o.RootUsers, emulator.RootUser{UserID: "user-2", UserName: "approver", APIPublicKey: k2.PublicKeyHex()})
		o.RootQuorum = 2
	})
	return e, accClient(t, e.url, k2)
}

// policyVoter is a second root user who votes on every activity waiting for
// consensus, from a goroutine, until the test ends.
type policyVoter struct {
	mu    sync.Mutex
	voted map[string]string // activity id -> activity type
}

// policyStartVoter starts voting (approve, or reject when approve is
// false) every 100 ms. The goroutine stops when the test's cleanup runs,
// or after two minutes at most, and the cleanup waits for it.
func policyStartVoter(t *testing.T, c *client.Client, approve bool) *policyVoter {
	return startVoter(t, c, approve, 100*time.Millisecond, 2*time.Minute)
}

// startVoter is policyStartVoter voting every interval, for at most
// lifetime.
func startVoter(t *testing.T, c *client.Client, approve bool, interval, lifetime time.Duration) *policyVoter {
	v := &policyVoter{voted: map[string]string{}}
	ctx, cancel := context.WithTimeout(context.Background(), lifetime)
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			list, err := c.ListActivities(ctx, client.ListActivitiesRequest{FilterByStatus: []string{client.StatusConsensusNeeded}})
			if err != nil {
				continue // the next tick retries; ctx ends the loop
			}
			for _, act := range list.Activities {
				vote := c.ApproveActivity
				if !approve {
					vote = c.RejectActivity
				}
				if _, err := vote(ctx, client.VoteParams{Fingerprint: act.Fingerprint}); err == nil {
					v.mu.Lock()
					v.voted[act.ID] = act.Type
					v.mu.Unlock()
				}
			}
		}
	}()
	return v
}

// votedFor says whether this voter voted on the activity with id.
func (v *policyVoter) votedFor(id string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.voted[id] != ""
}

// votedOn counts the activities of typ this voter voted on.
func (v *policyVoter) votedOn(typ string) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for _, t := range v.voted {
		if t == typ {
			n++
		}
	}
	return n
}

// policyConsensusActivities lists the activities of typ in any status.
func policyConsensusActivities(c *client.Client, typ string, status ...string) ([]client.Activity, error) {
	got, err := c.ListActivities(context.Background(), client.ListActivitiesRequest{FilterByType: []string{typ}, FilterByStatus: status,
		PaginationOptions: &client.Pagination{Limit: "100"}})
	if err != nil {
		return nil, err
	}
	return got.Activities, nil
}

// policyConsensusCount checks how many policies the emulator holds, and
// that one create_policies activity was ever submitted: a wait that timed
// out or an answer that was lost is adopted, never submitted again.
func policyConsensusCount(e *accEmulator, policies int) resource.TestCheckFunc {
	const creates = 1
	return func(*terraform.State) error {
		got, err := e.client.ListPolicies(context.Background(), client.ListPoliciesRequest{})
		if err != nil {
			return err
		}
		if len(got.Policies) != policies {
			return fmt.Errorf("the service holds %d policies, want %d", len(got.Policies), policies)
		}
		acts, err := policyConsensusActivities(e.client, client.OpCreatePolicies.Type)
		if err != nil {
			return err
		}
		if len(acts) != creates {
			return fmt.Errorf("%d %s activities were submitted, want %d", len(acts), client.OpCreatePolicies.Type, creates)
		}
		return nil
	}
}

const policyConsensusConfig = `
resource "custody_policy" "test" {
  name   = "needs two approvals"
  effect = "EFFECT_ALLOW"
%s}
`

// TestAccPolicyConsensus_approved: the apply waits while the activity needs
// consensus and succeeds once another root user approves it.
func TestAccPolicyConsensus_approved(t *testing.T) {
	e, approver := policyConsensusEmulator(t)
	var voter *policyVoter
	accTest(t, resource.TestCase{
		CheckDestroy: policyTestCheckDestroy(e), // the delete was approved too
		Steps: []resource.TestStep{{
			PreConfig: func() { voter = policyStartVoter(t, approver, true) },
			Config:    e.config(fmt.Sprintf(policyConsensusConfig, "")),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(policyTestAddr, tfjsonpath.New("name"), knownvalue.StringExact("needs two approvals")),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				policyTestInService(e, client.Policy{PolicyName: "needs two approvals", Effect: client.EffectAllow}),
				policyConsensusCount(e, 1),
				func(*terraform.State) error {
					if n := voter.votedOn(client.OpCreatePolicies.Type); n != 1 {
						return fmt.Errorf("the approver voted on %d create activities, want 1: the apply did not wait for consensus", n)
					}
					return nil
				}),
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		}},
	})
}

// TestAccPolicyConsensus_timeoutThenAdopt: an apply whose create times out
// waiting for approval leaves the activity pending; once it is approved,
// the next apply adopts it instead of submitting a second one.
func TestAccPolicyConsensus_timeoutThenAdopt(t *testing.T) {
	e, approver := policyConsensusEmulator(t)
	cfg := e.config(fmt.Sprintf(policyConsensusConfig, "  timeouts = { create = \"3s\" }\n"))
	var started time.Time
	var adoptedID string
	accTest(t, resource.TestCase{
		CheckDestroy: policyTestCheckDestroy(e),
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { started = time.Now() },
				Config:      cfg,
				ExpectError: regexp.MustCompile(`(?s)activity\s+\S+\s+still\s+waits\s+for\s+approval.*still\s+waiting\s+after\s+(2\.[7-9]|3\.\d)s,\s+the\s+timeout\s+of\s+3s\s+less\s+300ms.*Activity:\s+\S+\s+\(ACTIVITY_TYPE_CREATE_POLICIES,\s+ACTIVITY_STATUS_CONSENSUS_NEEDED\),\s+fingerprint\s+[0-9a-f]{64}.*Approve\s+or\s+reject`),
			},
			{
				PreConfig: func() {
					// 3 s of waiting plus Terraform's own work; the default
					// approval_timeout (20m) would blow far past this.
					if d := time.Since(started); d > 60*time.Second {
						t.Fatalf("the failed apply took %s: the create timeout of 3s was not honoured", d)
					}
					pending, err := policyConsensusActivities(approver, client.OpCreatePolicies.Type, client.StatusConsensusNeeded)
					if err != nil {
						t.Fatal(err)
					}
					if len(pending) != 1 {
						t.Fatalf("%d create activities wait for consensus, want 1", len(pending))
					}
					act, err := approver.ApproveActivity(context.Background(), client.VoteParams{Fingerprint: pending[0].Fingerprint})
					if err != nil {
						t.Fatal(err)
					}
					if act.Status != client.StatusCompleted {
						t.Fatalf("approved activity is %s, want completed", act.Status)
					}
					got, err := e.client.ListPolicies(context.Background(), client.ListPoliciesRequest{})
					if err != nil || len(got.Policies) != 1 {
						t.Fatalf("after the approval: %v, %+v", err, got)
					}
					adoptedID = got.Policies[0].PolicyID
				},
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttrPtr(policyTestAddr, "id", &adoptedID),
					policyConsensusCount(e, 1)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				// Someone must approve the delete at destroy.
				PreConfig: func() { policyStartVoter(t, approver, true) },
				Config:    cfg,
				PlanOnly:  true,
			},
		},
	})
}

// TestAccPolicyConsensus_rejected: a rejection ends the apply with an error
// that names who rejected, and creates nothing.
func TestAccPolicyConsensus_rejected(t *testing.T) {
	e, approver := policyConsensusEmulator(t)
	accTest(t, resource.TestCase{
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			policyConsensusCount(e, 0),
			func(*terraform.State) error {
				acts, err := policyConsensusActivities(e.client, client.OpCreatePolicies.Type, client.StatusRejected)
				if err != nil || len(acts) != 1 {
					return fmt.Errorf("rejected create activities: %v, %d, want 1", err, len(acts))
				}
				return nil
			}),
		Steps: []resource.TestStep{{
			PreConfig:   func() { policyStartVoter(t, approver, false) },
			Config:      e.config(fmt.Sprintf(policyConsensusConfig, "")),
			ExpectError: regexp.MustCompile(`(?s)activity\s+\S+\s+was\s+rejected.*Rejected\s+by\s+approver\s+\(user\s+user-2\).*ACTIVITY_STATUS_REJECTED`),
		}},
	})
}
