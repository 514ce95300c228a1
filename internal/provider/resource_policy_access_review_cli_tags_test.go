package provider

import (
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// The plan's rows name private key tags by their names, from one
// list_private_key_tags per provider process; the witness keeps the id,
// which is what policy_decision reads.
func TestAccessReviewCLI_tagNames(t *testing.T) {
	w := newReviewWorld(t)
	made, err := w.e.client.CreatePrivateKeyTag(t.Context(), client.CreatePrivateKeyTagParams{PrivateKeyTagName: "hot wallets"})
	if err != nil {
		t.Fatal(err)
	}
	id := made.Result.PrivateKeyTagID
	after := with(reviewManaged, "hot_signs", reviewPolicy{"hot keys sign raw payloads alone", client.EffectAllow,
		"activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && private_key.tags.contains('" + id + "')", ""})
	before := w.e.srv.RequestCounts()["query/list_private_key_tags"]
	_, diags := w.planJSON(reviewResources(after))
	changes := reviewDiags(diags, "Access change: ")
	if len(changes) != 1 {
		t.Fatalf("want one Access change warning, got %+v", diags)
	}
	d := changes[0].Detail
	if want := "private_key.tags contains '" + id + "' (tag \"hot wallets\")"; !strings.Contains(d, want) {
		t.Errorf("the warning does not name the tag (%q):\n%s", want, d)
	}
	if !strings.Contains(d, `tags = ["`+id+`"]`) {
		t.Errorf("the witness should keep the tag's id:\n%s", d)
	}
	// A plan starts the provider more than once; each reads the list once
	// at most.
	if n := w.e.srv.RequestCounts()["query/list_private_key_tags"] - before; n < 1 || n > 3 {
		t.Errorf("list_private_key_tags read %d times in the plan", n)
	}
}
