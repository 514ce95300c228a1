package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A control passes only when it is proved. These tests hold the two ways
// a plan can fail to prove one, and the control's opt-in to a warning.

// notProvedControl is a provider block with one control, at most consensus
// on typ, with on_not_proved set when onNotProved is not empty.
func notProvedControl(name, typ, onNotProved string) string {
	opt := ""
	if onNotProved != "" {
		opt = fmt.Sprintf("\n      on_not_proved  = %q", onNotProved)
	}
	return fmt.Sprintf(`
provider "custody" {
  controls = [
    {
      name           = %q
      activity_types = [%q]
      at_most        = "consensus"%s
    },
  ]
}
`, name, typ, opt)
}

// checkNotProved plans body under a control name on typ, as it is and with
// on_not_proved = "warning", in a CLI with env added, and wants exactly
// one "Control not proved: name" on address: an error that fails the plan
// or, opted in, a warning and a plan that goes on; its detail naming why.
func checkNotProved(t *testing.T, name, typ, body, address, why string, env ...string) {
	t.Helper()
	for _, onNotProved := range []string{"", "warning"} {
		t.Run("on_not_proved="+onNotProved, func(t *testing.T) {
			c := newTFCLI(t, newAccEmulator(t))
			c.env = append(c.env, env...)
			c.write(notProvedControl(name, typ, onNotProved) + body)
			out, code := c.run(nil, "plan", "-detailed-exitcode", "-json")
			got := reviewDiags(planDiagnostics(out), "Control not proved: ")
			wantCode, wantSeverity := 1, "error"
			if onNotProved == "warning" {
				wantCode, wantSeverity = 2, "warning"
			}
			if code != wantCode || len(got) != 1 {
				t.Fatalf("want exit %d with one Control not proved, got exit %d and %+v:\n%s", wantCode, code, got, out)
			}
			d := got[0]
			if d.Summary != "Control not proved: "+name || d.Severity != wantSeverity || d.Address != address || !strings.Contains(d.Detail, why) {
				t.Errorf("want the %s %q on %s naming %q, got %+v", wantSeverity, "Control not proved: "+name, address, why, d)
			}
		})
	}
}

// A new allow of transactions alone where an ABI argument, read as a
// bool, holds: the analysis finds a request that the control forbids, but
// its witness cannot carry the argument (its type comes only from an
// uploaded ABI, and a bool read is not typed), so the engine does not
// decide it as claimed. The control is neither broken nor proved:
// "Control not proved", naming the argument.
func TestAccessReviewCLI_controlNotProved(t *testing.T) {
	body := `
resource "custody_policy" "wad" {
  name      = "wad limit alone"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.contract_call_args['approved']"
}
`
	checkNotProved(t, "transactions never alone", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", body, "custody_policy.wad", "contract_call_args")
}

// A plan that cannot read the organization's policies cannot prove a
// control either: each change it would judge gets "Control not proved".
func TestAccessReviewCLI_controlUnreadable(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"code": 14, "message": "unavailable"}`))
	}))
	t.Cleanup(down.Close)
	body := `
resource "custody_policy" "wallets" {
  name      = "wallets alone"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'WALLET' && activity.action == 'CREATE'"
}
`
	checkNotProved(t, "wallets never alone", "ACTIVITY_TYPE_CREATE_WALLET", body, "custody_policy.wallets", "could not be read",
		"CUSTODY_BASE_URL="+down.URL, "CUSTODY_SKIP_CREDENTIALS_VALIDATION=true", "CUSTODY_MAX_RETRIES=1")
}
