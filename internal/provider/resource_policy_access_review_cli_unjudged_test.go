package provider

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Plans the access review cannot judge at plan time: a condition known
// only at apply, and a service that cannot list the organization's
// policies.

// A change whose condition is known only at apply gets no report at plan
// (a warning says the controls wait for the apply), and the apply, which
// plans it again with its values, refuses it before it is submitted.
func TestAccessReviewCLI_unknownAtPlan(t *testing.T) {
	w := newReviewWorld(t)
	body := reviewResources(reviewManaged) + `
resource "custody_private_key_tag" "hot" {
  name            = "hot"
  private_key_ids = []
}

resource "custody_policy" "hot_signs" {
  name      = "hot keys sign raw payloads alone"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && private_key.tags.contains('${custody_private_key_tag.hot.id}')"
}
`
	code, diags := w.planJSON(body)
	waits := reviewDiags(diags, "Controls checked at apply: ")
	if code != 2 || len(waits) != 1 || waits[0].Address != "custody_policy.hot_signs" || len(reviewDiags(diags, "Access change")) != 0 {
		t.Fatalf("the plan should only say that the controls wait for the apply (exit %d): %+v", code, diags)
	}
	out, code := w.cli.run(nil, "apply", "-auto-approve")
	if code != 1 || !strings.Contains(out, "Error: Control broken: raw signing never alone") || !strings.Contains(out, "custody_policy.hot_signs") {
		t.Fatalf("the apply should refuse the change for the control (exit %d):\n%s", code, out)
	}
	policies, err := w.e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range policies.Policies {
		if p.PolicyName == "hot keys sign raw payloads alone" {
			t.Errorf("the refused policy was created: %+v", p)
		}
	}
}

// A plan that cannot read the organization's policies (here a service
// that answers 503 to everything, with skip_credentials_validation) goes
// on, with an "Access review not made" warning on each policy, and reads
// the list once for the command, not once per policy: the transport has
// already retried.
func TestAccessReviewCLI_unreadable(t *testing.T) {
	var mu sync.Mutex
	lists := 0
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "list_policies") {
			mu.Lock()
			lists++
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"code": 14, "message": "unavailable"}`))
	}))
	t.Cleanup(down.Close)
	c := newTFCLI(t, newAccEmulator(t))
	c.env = append(c.env, "CUSTODY_BASE_URL="+down.URL, "CUSTODY_SKIP_CREDENTIALS_VALIDATION=true", "CUSTODY_MAX_RETRIES=1")
	c.write(`
resource "custody_policy" "p" {
  count     = 4
  name      = "wallets ${count.index}"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'WALLET' && activity.action == 'CREATE'"
}
`)
	out, code := c.run(nil, "plan", "-detailed-exitcode", "-json")
	var warned []string
	for _, d := range planDiagnostics(out) {
		if d.Summary == "Access review not made" {
			warned = append(warned, d.Address)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// The command's first reads send the list once, never retried
	// (provider_prefetch.go); its failure leaves the review to read it
	// again, once, with its one retry.
	if code != 2 || len(warned) != 4 || lists != 3 {
		t.Fatalf("want the plan to go on (exit %d, want 2) with 4 warnings (got %v) after the first reads' one list and one read with its one retry (got %d requests):\n%s",
			code, warned, lists, out)
	}
}
