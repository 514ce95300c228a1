package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

const privateKeyTagAddr = "custody_private_key_tag.test"

// privateKeyTagTestKeys creates n secp256k1 keys through the test's own
// client: the provider manages tags, not keys.
func privateKeyTagTestKeys(t *testing.T, e *accEmulator, n int) []string {
	t.Helper()
	var params client.CreatePrivateKeysParams
	for i := range n {
		params.PrivateKeys = append(params.PrivateKeys, client.PrivateKeyParams{PrivateKeyName: fmt.Sprintf("%s-key-%d", t.Name(), i),
			Curve: "CURVE_SECP256K1", AddressFormats: []string{"ADDRESS_FORMAT_ETHEREUM"}})
	}
	out, err := e.client.CreatePrivateKeys(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, k := range out.Result.PrivateKeys {
		ids = append(ids, k.PrivateKeyID)
	}
	if len(ids) != n {
		t.Fatalf("created %d keys, want %d", len(ids), n)
	}
	return ids
}

// privateKeyTagTestConfig is one tag; keys are written as given (HCL).
func privateKeyTagTestConfig(e *accEmulator, name string, keys ...string) string {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = fmt.Sprintf("%q", k)
	}
	return e.config(fmt.Sprintf(`
resource "custody_private_key_tag" "test" {
  name            = %q
  private_key_ids = [%s]
}
`, name, strings.Join(quoted, ", ")))
}

// privateKeyTagTestOutside changes the tag named name outside Terraform,
// in a step's PreConfig.
func privateKeyTagTestOutside(t *testing.T, e *accEmulator, name string, change func(ctx context.Context, id string) error) func() {
	return outside(t, func(ctx context.Context) error {
		tags, err := e.client.ListPrivateKeyTags(ctx, client.ListPrivateKeyTagsRequest{})
		if err != nil {
			return err
		}
		for _, tag := range tags.PrivateKeyTags {
			if tag.TagName == name {
				return change(ctx, tag.TagID)
			}
		}
		return fmt.Errorf("no private key tag named %q", name)
	})
}

// privateKeyTagTestMembers checks, in list_private_keys, that exactly want
// carry the tag in state.
func privateKeyTagTestMembers(e *accEmulator, want ...string) resource.TestCheckFunc {
	return checkID(privateKeyTagAddr, func(ctx context.Context, id string) error {
		keys, err := e.client.ListPrivateKeys(ctx, client.ListPrivateKeysRequest{})
		if err != nil {
			return err
		}
		var got []string
		for _, k := range keys.PrivateKeys {
			if slices.Contains(k.PrivateKeyTags, id) {
				got = append(got, k.PrivateKeyID)
			}
		}
		slices.Sort(got)
		want = slices.Sorted(slices.Values(want))
		if !slices.Equal(got, want) {
			return fmt.Errorf("keys carrying tag %s: %v, want %v", id, got, want)
		}
		return nil
	})
}

// privateKeyTagTestDestroyed is a CheckDestroy: no private key tag is left,
// and the keys are (destroying a tag never deletes keys).
func privateKeyTagTestDestroyed(e *accEmulator, keys []string) resource.TestCheckFunc {
	return checkService(func(ctx context.Context) error {
		tags, err := e.client.ListPrivateKeyTags(ctx, client.ListPrivateKeyTagsRequest{})
		if err != nil {
			return err
		}
		if len(tags.PrivateKeyTags) != 0 {
			return fmt.Errorf("private key tags left after destroy: %+v", tags.PrivateKeyTags)
		}
		list, err := e.client.ListPrivateKeys(ctx, client.ListPrivateKeysRequest{})
		if err != nil {
			return err
		}
		for _, id := range keys {
			i := slices.IndexFunc(list.PrivateKeys, func(k client.PrivateKey) bool { return k.PrivateKeyID == id })
			if i < 0 {
				return fmt.Errorf("private key %s was deleted with the tag", id)
			}
			if len(list.PrivateKeys[i].PrivateKeyTags) != 0 {
				return fmt.Errorf("private key %s still carries tags %v", id, list.PrivateKeys[i].PrivateKeyTags)
			}
		}
		return nil
	})
}

// privateKeyTagTestIDs checks the private_key_ids in state.
func privateKeyTagTestIDs(ids ...string) statecheck.StateCheck {
	want := []knownvalue.Check{}
	for _, id := range ids {
		want = append(want, knownvalue.StringExact(id))
	}
	return attrIs(privateKeyTagAddr, "private_key_ids", knownvalue.SetExact(want))
}

// privateKeyTagTestRequests checks the emulator's count of op since it
// started.
func privateKeyTagTestRequests(e *accEmulator, what, op string, want int) resource.TestCheckFunc {
	return accRequestsSince(e, &map[string]int{}, what, map[string]int{op: want})
}

func TestAccPrivateKeyTag_basic(t *testing.T) {
	e := newAccEmulator(t)
	keys := privateKeyTagTestKeys(t, e, 3)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	imp := accImport{addr: privateKeyTagAddr}
	accTest(t, resource.TestCase{
		CheckDestroy: privateKeyTagTestDestroyed(e, keys),
		Steps: []resource.TestStep{
			{
				Config:           privateKeyTagTestConfig(e, "treasury", keys[0], keys[1]),
				ConfigPlanChecks: expectAction(privateKeyTagAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					attrIs(privateKeyTagAddr, "id", knownvalue.StringRegexp(accNonBlank)),
					attrIs(privateKeyTagAddr, "name", knownvalue.StringExact("treasury")),
					privateKeyTagTestIDs(keys[0], keys[1]),
					attrIs(privateKeyTagAddr, "timeouts", knownvalue.Null()),
					sameID.AddStateValue(privateKeyTagAddr, tfjsonpath.New("id")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					privateKeyTagTestMembers(e, keys[0], keys[1]),
					// A create reads nothing back: no list per created tag.
					privateKeyTagTestRequests(e, "the create", "query/list_private_key_tags", 0)),
			},
			{
				// A rename and a key swap are one update_private_key_tag on
				// the same tag: same id.
				Config:           privateKeyTagTestConfig(e, "treasury-renamed", keys[0], keys[2]),
				ConfigPlanChecks: expectAction(privateKeyTagAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					attrIs(privateKeyTagAddr, "name", knownvalue.StringExact("treasury-renamed")),
					privateKeyTagTestIDs(keys[0], keys[2]),
					sameID.AddStateValue(privateKeyTagAddr, tfjsonpath.New("id")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					privateKeyTagTestMembers(e, keys[0], keys[2]),
					// One activity did both: the rename and the membership.
					privateKeyTagTestRequests(e, "the rename and key swap", "submit/update_private_key_tag", 1)),
			},
			imp.verify(),
			imp.block(plancheck.ExpectResourceAction(privateKeyTagAddr, plancheck.ResourceActionNoop),
				plannedIs(privateKeyTagAddr, "name", knownvalue.StringExact("treasury-renamed")),
				plannedIs(privateKeyTagAddr, "private_key_ids", knownvalue.SetSizeExact(2))),
			{
				// Leaving private_key_ids out means "no keys", not "keep".
				Config: e.config(`
resource "custody_private_key_tag" "test" {
  name = "treasury-renamed"
}
`),
				ConfigPlanChecks:  expectAction(privateKeyTagAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{privateKeyTagTestIDs()},
				Check:             privateKeyTagTestMembers(e),
			},
		},
	})
}

func TestAccPrivateKeyTag_drift(t *testing.T) {
	e := newAccEmulator(t)
	keys := privateKeyTagTestKeys(t, e, 2)
	cfg := privateKeyTagTestConfig(e, "ops", keys[0], keys[1])
	planUpdate := planAction(privateKeyTagAddr, plancheck.ResourceActionUpdate)
	accTest(t, resource.TestCase{
		CheckDestroy: privateKeyTagTestDestroyed(e, keys),
		Steps: []resource.TestStep{
			{Config: cfg, Check: privateKeyTagTestMembers(e, keys[0], keys[1])},
			{
				// Renamed outside Terraform: refresh reads the new name and
				// the plan renames it back in place.
				PreConfig: privateKeyTagTestOutside(t, e, "ops", func(ctx context.Context, id string) error {
					_, err := e.client.UpdatePrivateKeyTag(ctx, client.UpdatePrivateKeyTagParams{PrivateKeyTagID: id, NewPrivateKeyTagName: "ops-elsewhere"})
					return err
				}),
				Config:            cfg,
				ConfigPlanChecks:  planUpdate,
				ConfigStateChecks: []statecheck.StateCheck{attrIs(privateKeyTagAddr, "name", knownvalue.StringExact("ops"))},
			},
			{
				// A key taken off the tag outside Terraform is put back.
				PreConfig: privateKeyTagTestOutside(t, e, "ops", func(ctx context.Context, id string) error {
					_, err := e.client.UpdatePrivateKeyTag(ctx, client.UpdatePrivateKeyTagParams{PrivateKeyTagID: id, RemovePrivateKeyIDs: []string{keys[1]}})
					return err
				}),
				Config:           cfg,
				ConfigPlanChecks: planUpdate,
				Check:            privateKeyTagTestMembers(e, keys[0], keys[1]),
			},
			{
				// Deleted outside Terraform: refresh drops it, plan creates it.
				PreConfig: privateKeyTagTestOutside(t, e, "ops", func(ctx context.Context, id string) error {
					_, err := e.client.DeletePrivateKeyTags(ctx, client.DeletePrivateKeyTagsParams{PrivateKeyTagIDs: []string{id}})
					return err
				}),
				Config:           cfg,
				ConfigPlanChecks: planAction(privateKeyTagAddr, plancheck.ResourceActionCreate),
				Check:            privateKeyTagTestMembers(e, keys[0], keys[1]),
			},
		},
	})
}

func TestAccPrivateKeyTag_validation(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			planFails(privateKeyTagTestConfig(e, ""), regexp.MustCompile(`(?s)name.*must not be empty or only white space`)),
			planFails(privateKeyTagTestConfig(e, "   "), regexp.MustCompile(`must not be empty or only white space`)),
			planFails(privateKeyTagTestConfig(e, "x", ""), regexp.MustCompile(`(?s)private_key_ids.*must not be empty or only white space`)),
		},
	})
	// Validation happens before anything is sent.
	expectNoSubmits(t, e)
}

// TestAccPrivateKeyTag_refreshListsOnce: refreshing five tags costs one
// list_private_key_tags and one list_private_keys query, not five of each.
func TestAccPrivateKeyTag_refreshListsOnce(t *testing.T) {
	e := newAccEmulator(t)
	keys := privateKeyTagTestKeys(t, e, 2)
	accTest(t, resource.TestCase{
		CheckDestroy: privateKeyTagTestDestroyed(e, keys),
		Steps: []resource.TestStep{
			{
				Config: e.config(fmt.Sprintf(`
resource "custody_private_key_tag" "many" {
  count           = 5
  name            = "many-${count.index}"
  private_key_ids = [count.index %% 2 == 0 ? %q : %q]
}
`, keys[0], keys[1])),
				ConfigStateChecks: []statecheck.StateCheck{attrIs("custody_private_key_tag.many[3]", "private_key_ids",
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(keys[1])}))},
			},
			refreshStep(e, "refreshing 5 tags", map[string]int{"query/list_private_key_tags": 1, "query/list_private_keys": 1}, stateHolds(5)),
		},
	})
}

// A create refused because the name is taken ends with the import block
// that adopts the tag that has it; with that block the next apply manages
// it, and nothing is created twice.
func TestAccPrivateKeyTag_nameTakenSaysHowToImport(t *testing.T) {
	e := newAccEmulator(t)
	made, err := e.client.CreatePrivateKeyTag(t.Context(), client.CreatePrivateKeyTagParams{PrivateKeyTagName: "taken", PrivateKeyIDs: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	id := made.Result.PrivateKeyTagID
	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config: privateKeyTagTestConfig(e, "taken"),
			ExpectError: regexp.MustCompile(`(?s)already exists.*The existing private key tag is ` + regexp.QuoteMeta(id) +
				`.*import \{\s+to = custody_private_key_tag\.<name>\s+id = "` + regexp.QuoteMeta(id) + `"\s+\}`),
		},
		{
			Config: privateKeyTagTestConfig(e, "taken") + fmt.Sprintf("\nimport {\n  to = custody_private_key_tag.test\n  id = %q\n}\n", id),
			Check:  resource.TestCheckResourceAttr("custody_private_key_tag.test", "id", id),
		},
	}})
}
