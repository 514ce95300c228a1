package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// lostAnswerError is the error of a create whose answer was lost.
var lostAnswerError = regexp.MustCompile(`(?s)Error creating policy.*may have reached\s+the\s+service.*saved\s+this\s+resource\s+as\s+tainted`)

// lostAnswersCase applies n policies with max_retries = 1 while faults
// lose the answers of some creates, then applies again once the service
// answers: every lost create must resolve to exactly one policy (the
// service holds exactly the n in state), the plan after is empty, and
// destroy leaves nothing. during, if set, runs beside the first apply and
// is stopped after it. providerLines are added to the provider block.
func lostAnswersCase(t *testing.T, e *accEmulator, n int, faults emulator.Faults, kinds []string, during func(stop <-chan struct{}),
	providerLines ...string) resource.TestCase {
	config := e.providerBlock(append([]string{"max_retries = 1"}, providerLines...)...) + faultsPolicies(n, "lost")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	return resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			if held := emulatorPolicyIDs(t, e); len(held) != 0 {
				return fmt.Errorf("%d policies left after destroy: %v", len(held), held)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					e.srv.SetFaults(faults)
					if during != nil {
						wg.Add(1)
						go func() { defer wg.Done(); during(stop) }()
					}
				},
				Config:      config,
				ExpectError: lostAnswerError,
			},
			{
				PreConfig: func() {
					close(stop)
					wg.Wait()
					e.srv.SetFaults(emulator.Faults{})
					got := e.srv.InjectedFaults()
					for _, kind := range kinds {
						if got[kind] == 0 {
							t.Fatalf("no %s fault was injected (%v): the test exercised nothing", kind, got)
						}
					}
					t.Logf("first apply: faults %v; the service holds %d policies", got, len(emulatorPolicyIDs(t, e)))
				},
				Config:           config,
				Check:            faultsExactly(e, n, "lost"),
				ConfigPlanChecks: faultsEmptyPlanAfter,
			},
		},
	}
}

// TestAccLostAnswers_droppedAfterCommit: 40% of the creates' answers are
// dropped after the service committed them, and both attempts of the first
// submit; with one retry, about one submit (a batch of creates) in six
// loses both.
func TestAccLostAnswers_droppedAfterCommit(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, lostAnswersCase(t, e, 50, emulator.Faults{DropAfterCommit: emulator.FaultRate{Rate: 0.4, First: 2}, Seed: 7},
		[]string{"drop-after-commit"}, nil))
}

// TestAccLostAnswers_internalErrorAfterCommit: the same with a 500 answered
// after the commit.
func TestAccLostAnswers_internalErrorAfterCommit(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, lostAnswersCase(t, e, 50, emulator.Faults{InternalAfterCommit: emulator.FaultRate{Rate: 0.4, First: 2}, Seed: 11},
		[]string{"500-after-commit"}, nil))
}

// TestAccLostAnswers_serviceDownPastTheRetries: answers are dropped after
// commits, and then the service goes down for the rest of the apply: the
// retries of committed creates and the creates sent since meet a 503. The
// first did act, the second did not; the next apply must tell them apart.
func TestAccLostAnswers_serviceDownPastTheRetries(t *testing.T) {
	e := newAccEmulator(t)
	drops := emulator.Faults{DropAfterCommit: emulator.FaultRate{Rate: 0.3, First: 2}, Seed: 3}
	goDown := func(stop <-chan struct{}) {
		for e.srv.RequestCounts()["submit/create_policies"] < 3 {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
		e.srv.SetFaults(emulator.Faults{Down: true})
	}
	accTest(t, lostAnswersCase(t, e, 50, drops, []string{"drop-after-commit", "down"}, goDown))
}

// TestAccLostAnswers_staleRetry: the answers of committed creates are
// dropped, and the retry of each is refused as stale with a 400, as after
// an outage longer than the service's liveness window (the emulator's
// StaleRetry; make drill-lost-answers runs the same with a real 200 ms
// window). That refusal says nothing of the first attempt, which the
// service committed: nothing may be sent again, and a batch may not be
// split and resent item by item. Batched and one by one, the next apply
// holds exactly the 100 policies.
func TestAccLostAnswers_staleRetry(t *testing.T) {
	for name, batching := range map[string]string{"batched": "true", "unbatched": "false"} {
		t.Run(name, func(t *testing.T) {
			e := newAccEmulator(t)
			faults := emulator.Faults{DropAfterCommit: emulator.FaultRate{Rate: 0.3, First: 1}, StaleRetry: emulator.FaultRate{Rate: 1}, Seed: 7}
			accTest(t, lostAnswersCase(t, e, 100, faults, []string{"drop-after-commit", "stale-retry"}, nil,
				"batching = { enabled = "+batching+" }"))
		})
	}
}

// TestAccLostAnswers_identicalBodies: two instances with identical
// configurations, both of whose answers are lost on both attempts.
// Resolving each must find its own activity, not the other's, which has the
// same parameters: two policies, each managed once, and no orphan.
func TestAccLostAnswers_identicalBodies(t *testing.T) {
	e := newAccEmulator(t)
	config := e.providerBlock("max_retries = 1") + `
resource "custody_policy" "same" {
  count  = 2
  name   = "same"
  effect = "EFFECT_ALLOW"
  notes  = "twin"
}
`
	twinIDs := func(s *terraform.State) error {
		ids := stateIDsOf(s, "custody_policy")
		held := emulatorPolicyIDs(t, e)
		if len(ids) != 2 || ids[0] == ids[1] || !slices.Equal(ids, held) {
			return fmt.Errorf("state ids %v, service %v: want two distinct policies, each in state once", ids, held)
		}
		return nil
	}
	accTest(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			if held := emulatorPolicyIDs(t, e); len(held) != 0 {
				return fmt.Errorf("policies left after destroy: %v", held)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				// Both attempts of both creates are dropped.
				PreConfig:   func() { e.srv.SetFaults(emulator.Faults{DropAfterCommit: emulator.FaultRate{First: 4}}) },
				Config:      config,
				ExpectError: lostAnswerError,
			},
			{
				PreConfig: func() {
					e.srv.SetFaults(emulator.Faults{})
					if held := emulatorPolicyIDs(t, e); len(held) != 2 {
						t.Fatalf("after the first apply the service holds %v, want both creates done", held)
					}
				},
				Config:           config,
				Check:            twinIDs,
				ConfigPlanChecks: faultsEmptyPlanAfter,
			},
		},
	})
}

// TestLostCreateCLI follows a lost create with the real CLI, step by step:
// the failed apply leaves a tainted placeholder and says what happened; a
// refresh resolves it to the object the service made, which `terraform
// untaint` keeps (the plan is then empty, nothing is created twice); and
// with -refresh=false, the replacement's delete resolves it itself.
func TestLostCreateCLI(t *testing.T) {
	e := newAccEmulator(t)
	cli := newTFCLI(t, e)
	cli.write(`
provider "custody" {
  max_retries = 1
}

resource "custody_policy" "a" {
  name   = "kept"
  effect = "EFFECT_DENY"
}
`)
	e.srv.SetFaults(emulator.Faults{DropAfterCommit: emulator.FaultRate{First: 2}})
	out := cli.mustRun(1, "apply", "-auto-approve")
	e.srv.SetFaults(emulator.Faults{})
	for _, want := range []string{"may have reached the service", "next\nplan or apply finds out"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("the failed apply does not say %q:\n%s", want, out)
		}
	}
	held := emulatorPolicyIDs(t, e)
	if ids := cli.policyStateIDs(); len(held) != 1 || len(ids) != 1 || !strings.HasPrefix(ids[0], client.LostCreateIDPrefix) {
		t.Fatalf("after the lost create: service %v, state %v; want one policy and a placeholder", held, ids)
	}
	if out := cli.mustRun(2, "plan", "-detailed-exitcode"); !strings.Contains(out, "is tainted, so must be replaced") {
		t.Fatalf("the plan does not replace the tainted policy:\n%s", out)
	}

	cli.mustRun(0, "apply", "-refresh-only", "-auto-approve")
	if ids := cli.policyStateIDs(); len(ids) != 1 || ids[0] != held[0] {
		t.Fatalf("after a refresh the state holds %v, want the service's %v", ids, held)
	}
	cli.mustRun(0, "untaint", "custody_policy.a")
	cli.mustRun(0, "plan", "-detailed-exitcode")
	if after := emulatorPolicyIDs(t, e); !slices.Equal(after, held) {
		t.Fatalf("the service holds %v, want only %v", after, held)
	}

	// A placeholder that no refresh resolved: the replacement's delete
	// finds the object and deletes it, and the create makes one new one.
	cli.mustRun(0, "destroy", "-auto-approve")
	e.srv.SetFaults(emulator.Faults{DropAfterCommit: emulator.FaultRate{First: 2}})
	cli.mustRun(1, "apply", "-auto-approve")
	e.srv.SetFaults(emulator.Faults{})
	lost := emulatorPolicyIDs(t, e)
	cli.mustRun(0, "apply", "-refresh=false", "-auto-approve")
	now := emulatorPolicyIDs(t, e)
	if ids := cli.policyStateIDs(); len(lost) != 1 || len(now) != 1 || now[0] == lost[0] || !slices.Equal(ids, now) {
		t.Fatalf("lost create made %v; after the apply the service holds %v and state %v: want one new policy in state", lost, now, ids)
	}
}

// TestLostCreateCLI_twinAnswered: of two instances with identical
// configurations, created one at a time, the first loses its answer and the
// second gets it. The lost one resolves to its own policy, never to its
// twin's, which the other instance manages.
func TestLostCreateCLI_twinAnswered(t *testing.T) {
	e := newAccEmulator(t)
	cli := newTFCLI(t, e)
	cli.write(`
provider "custody" {
  max_retries = 1
}

resource "custody_policy" "twin" {
  count  = 2
  name   = "twin"
  effect = "EFFECT_ALLOW"
}
`)
	e.srv.SetFaults(emulator.Faults{DropAfterCommit: emulator.FaultRate{First: 2}})
	cli.mustRun(1, "apply", "-auto-approve", "-parallelism=1")
	e.srv.SetFaults(emulator.Faults{})
	ids := cli.policyStateIDs()
	held := emulatorPolicyIDs(t, e)
	answered := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return strings.HasPrefix(id, client.LostCreateIDPrefix) })
	if len(ids) != 2 || len(answered) != 1 || len(held) != 2 {
		t.Fatalf("state %v, service %v: want one placeholder and one policy in state, two policies made", ids, held)
	}
	cli.mustRun(0, "apply", "-refresh-only", "-auto-approve")
	resolved := cli.policyStateIDs()
	slices.Sort(resolved)
	if !slices.Equal(resolved, held) {
		t.Fatalf("after the refresh the state holds %v, want the service's two policies %v, each once", resolved, held)
	}
	cli.mustRun(0, "apply", "-auto-approve")
	final := cli.policyStateIDs()
	slices.Sort(final)
	if now := emulatorPolicyIDs(t, e); len(final) != 2 || final[0] == final[1] || !slices.Equal(final, now) {
		t.Fatalf("state %v, service %v: want the same two distinct policies", final, now)
	}
	cli.mustRun(0, "plan", "-detailed-exitcode")
}

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
	accTest(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			if held := serviceIDs(t, e); len(held) != 0 {
				return fmt.Errorf("left after destroy: %v", held)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				// Both attempts of each of the three creates are dropped.
				PreConfig:   func() { e.srv.SetFaults(emulator.Faults{DropAfterCommit: emulator.FaultRate{First: 6}}) },
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)(Error creating (private key tag|webhook endpoint|OAuth provider).*may have reached\s+the\s+service.*){3}`),
			},
			{
				PreConfig: func() {
					e.srv.SetFaults(emulator.Faults{})
					for _, typ := range types {
						if n := len(serviceIDs(t, e)[typ]); n != 1 {
							t.Fatalf("%s: the lost create made %d objects, want 1", typ, n)
						}
					}
				},
				Config:           config,
				Check:            exactlyOne,
				ConfigPlanChecks: faultsEmptyPlanAfter,
			},
		},
	})
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
				PreConfig:   func() { e.srv.SetFaults(emulator.Faults{DropAfterCommit: emulator.FaultRate{First: 2}}) },
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
					func(*terraform.State) error {
						if n := e.srv.RequestCounts()["submit/delete_policy"]; n != 0 {
							return fmt.Errorf("%d delete_policy submits: the placeholder had nothing to delete", n)
						}
						return nil
					}),
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
		{"one batch", "", 1},
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
