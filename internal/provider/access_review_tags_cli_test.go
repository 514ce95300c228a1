package provider

import (
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// TestAccessReviewCLI_tagDeletion: deleting a tag that a deny names takes
// the deny away from every key that carried it (the service strips the
// tag), and the plan says so as an access change of that deny.
func TestAccessReviewCLI_tagDeletion(t *testing.T) {
	e := newAccEmulator(t)
	c := newTFCLI(t, e)
	const tagHCL = `
resource "custody_private_key_tag" "frozen" {
  name = "frozen"
}
`
	c.write(tagHCL)
	c.mustRun(0, "apply", "-auto-approve")
	tags, err := e.client.ListPrivateKeyTags(t.Context(), client.ListPrivateKeyTagsRequest{})
	if err != nil || len(tags.PrivateKeyTags) != 1 {
		t.Fatalf("want the one tag: %+v %v", tags, err)
	}
	id := tags.PrivateKeyTags[0].TagID
	deny := client.PolicyParams{PolicyName: "frozen keys never sign", Effect: client.EffectDeny,
		Condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && private_key.tags.contains('" + id + "')"}
	allow := client.PolicyParams{PolicyName: "anyone signs", Effect: client.EffectAllow, Condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'"}
	if _, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{deny, allow}}); err != nil {
		t.Fatal(err)
	}

	c.write("")
	out, code := c.run(nil, "plan", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, "Warning: Access change: frozen keys never sign (tag frozen deleted)") ||
		!strings.Contains(out, "OUTCOME_DENY_EXPLICIT -> OUTCOME_ALLOW") {
		t.Fatalf("deleting the tag should show the deny it takes away (exit %d):\n%s", code, out)
	}
	// The ground truth, by the engine: a key carrying the tag is denied
	// now, and allowed once no key can carry it.
	set := []policyset.Policy{
		{ID: "d", Name: deny.PolicyName, Effect: deny.Effect, Condition: deny.Condition},
		{ID: "a", Name: allow.PolicyName, Effect: allow.Effect, Condition: allow.Condition},
	}
	req := policyset.Request{Type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", Approvers: []policyset.User{{ID: "requester"}},
		Params: map[string]any{"type": "TRANSACTION_TYPE_ETHEREUM"}, PrivateKey: &policyset.PrivateKey{Tags: []string{id}}}
	if d := policyset.Decide(set, req); d.Verdict != client.OutcomeDenyExplicit {
		t.Errorf("a key with the tag should be denied before: %s", d.Verdict)
	}
	req.PrivateKey.Tags = nil
	if d := policyset.Decide(set, req); d.Verdict != client.OutcomeAllow {
		t.Errorf("the same key without the tag should be allowed: %s", d.Verdict)
	}
}

// TestAccessReviewCLI_tagRemovedByTheExclusiveResource: a tag made outside
// the configuration and removed by custody_private_key_tags_exclusive is
// reviewed as its deletion is.
func TestAccessReviewCLI_tagRemovedByTheExclusiveResource(t *testing.T) {
	e := newAccEmulator(t)
	c := newTFCLI(t, e)
	tag, err := e.client.CreatePrivateKeyTag(t.Context(), client.CreatePrivateKeyTagParams{PrivateKeyTagName: "frozen"})
	if err != nil {
		t.Fatal(err)
	}
	id := tag.Result.PrivateKeyTagID
	if _, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{
		{PolicyName: "frozen keys never sign", Effect: client.EffectDeny,
			Condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && private_key.tags.contains('" + id + "')"},
		{PolicyName: "anyone signs", Effect: client.EffectAllow, Condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'"},
	}}); err != nil {
		t.Fatal(err)
	}
	c.write(`
resource "custody_private_key_tags_exclusive" "all" {
  private_key_tag_ids = []
}
`)
	out, code := c.run(nil, "plan", "-detailed-exitcode")
	if code != 2 || !strings.Contains(out, "Warning: Access change: frozen keys never sign (tag frozen deleted)") ||
		!strings.Contains(out, "OUTCOME_DENY_EXPLICIT -> OUTCOME_ALLOW") {
		t.Fatalf("removing the tag should show the deny it takes away (exit %d):\n%s", code, out)
	}
}
