package review

import (
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// A row about a key tag names it; the witness keeps the id.
func TestWithTagNames(t *testing.T) {
	ps := org()
	after := &policyset.Policy{ID: "p-hot", Effect: client.EffectAllow,
		Condition: "activity.type == '" + signTx + "' && private_key.tags.contains('4f1c-hot') && !private_key.tags.contains('9e2d-frozen')"}
	r := report(t, ps, Change{After: after})
	if !r.NamesKeyTags() {
		t.Fatalf("the rows name no key tag:\n%s", r.Detail(10))
	}
	named := r.WithTagNames(map[string]string{"4f1c-hot": "hot wallets", "unused": "x"})
	d := named.Detail(10)
	if !strings.Contains(d, `private_key.tags contains '4f1c-hot' (tag "hot wallets")`) {
		t.Errorf("the tag is not named:\n%s", d)
	}
	if strings.Contains(d, `'9e2d-frozen' (tag`) {
		t.Errorf("a tag the organization does not have got a name:\n%s", d)
	}
	for i, row := range named.Rows {
		if row.Example != r.Rows[i].Example {
			t.Errorf("the witness changed: %s, want %s", row.Example, r.Rows[i].Example)
		}
	}
	if r.Rows[0].Words == named.Rows[0].Words {
		t.Error("WithTagNames changed the report it was called on, or nothing")
	}
}
