package review

import (
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// The examples are HCL that Terraform reads back as the same values:
// strings with quotes, newlines and template sequences survive, and
// integers beyond 2^53 stay exact as decimal strings.
func TestExamplesAreHCL(t *testing.T) {
	odd := "a\"b\\c\n${x} %{y} $z"
	req := policyset.Request{Type: signTx, Approvers: []policyset.User{{ID: odd, Tags: []string{odd}}},
		Params: map[string]any{"encoding": odd}, PrivateKey: &policyset.PrivateKey{ID: "k", Tags: []string{"hot"}, Exported: true}}
	if err := req.SetKeywordAttribute("eth", map[string]any{"tx": map[string]any{"value": "123456789012345678901234567890", "to": odd}}); err != nil {
		t.Fatal(err)
	}
	src := example(req)
	expr, diags := hclsyntax.ParseExpression([]byte(src), "example.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s: %s", src, diags)
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		t.Fatalf("%s: %s", src, diags)
	}
	for path, got := range map[string]string{
		"approvers[0].id":   v.GetAttr("approvers").AsValueSlice()[0].GetAttr("id").AsString(),
		"approvers[0].tags": v.GetAttr("approvers").AsValueSlice()[0].GetAttr("tags").AsValueSlice()[0].AsString(),
		"params.encoding":   v.GetAttr("params").GetAttr("encoding").AsString(),
		"eth.tx.to":         v.GetAttr("eth").GetAttr("tx").GetAttr("to").AsString(),
	} {
		if got != odd {
			t.Errorf("%s reads back as %q", path, got)
		}
	}
	if got := v.GetAttr("eth").GetAttr("tx").GetAttr("value").AsString(); got != "123456789012345678901234567890" {
		t.Errorf("eth.tx.value reads back as %s", got)
	}
	if !v.GetAttr("private_key").GetAttr("exported").True() {
		t.Errorf("private_key.exported lost")
	}
}

// A witness that carries credentials and a time shows them, as
// policy_decision reads them.
func TestExampleCredentialsAndTime(t *testing.T) {
	req := policyset.Request{Type: signTx, Approvers: []policyset.User{{ID: "requester"}},
		Credentials: []policyset.Credential{{UserID: "requester", Type: "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR", ID: "c1"}},
		Now:         time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	want := `{ type = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers = [{ id = "requester" }], credentials = [{ id = "c1", ` +
		`type = "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR", user_id = "requester" }], time = "2026-03-01T09:00:00Z" }`
	if got := example(req); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
