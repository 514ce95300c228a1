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
	"github.com/hashicorp/terraform-plugin-testing/terraform"
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

// privateKeyTagTestID finds a tag's id by name through the test's client.
func privateKeyTagTestID(t *testing.T, e *accEmulator, name string) string {
	t.Helper()
	tags, err := e.client.ListPrivateKeyTags(context.Background(), client.ListPrivateKeyTagsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range tags.PrivateKeyTags {
		if tag.TagName == name {
			return tag.TagID
		}
	}
	t.Fatalf("no private key tag named %q", name)
	return ""
}

// privateKeyTagTestMembers checks, in list_private_keys, that exactly want
// carry the tag in state.
func privateKeyTagTestMembers(e *accEmulator, want ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[privateKeyTagAddr]
		if !ok {
			return fmt.Errorf("%s not in state", privateKeyTagAddr)
		}
		keys, err := e.client.ListPrivateKeys(context.Background(), client.ListPrivateKeysRequest{})
		if err != nil {
			return err
		}
		var got []string
		for _, k := range keys.PrivateKeys {
			if slices.Contains(k.PrivateKeyTags, rs.Primary.ID) {
				got = append(got, k.PrivateKeyID)
			}
		}
		slices.Sort(got)
		want = slices.Sorted(slices.Values(want))
		if !slices.Equal(got, want) {
			return fmt.Errorf("keys carrying tag %s: %v, want %v", rs.Primary.ID, got, want)
		}
		return nil
	}
}

// privateKeyTagTestDestroyed is a CheckDestroy: no private key tag is left,
// and the keys are (destroying a tag never deletes keys).
func privateKeyTagTestDestroyed(e *accEmulator, keys []string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		tags, err := e.client.ListPrivateKeyTags(context.Background(), client.ListPrivateKeyTagsRequest{})
		if err != nil {
			return err
		}
		if len(tags.PrivateKeyTags) != 0 {
			return fmt.Errorf("private key tags left after destroy: %+v", tags.PrivateKeyTags)
		}
		list, err := e.client.ListPrivateKeys(context.Background(), client.ListPrivateKeysRequest{})
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
	}
}

func TestAccPrivateKeyTag_basic(t *testing.T) {
	e := newAccEmulator(t)
	keys := privateKeyTagTestKeys(t, e, 3)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	accTest(t, resource.TestCase{
		CheckDestroy: privateKeyTagTestDestroyed(e, keys),
		Steps: []resource.TestStep{
			{
				Config:           privateKeyTagTestConfig(e, "treasury", keys[0], keys[1]),
				ConfigPlanChecks: expectAction(privateKeyTagAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(privateKeyTagAddr, tfjsonpath.New("id"), knownvalue.StringRegexp(accNonBlank)),
					statecheck.ExpectKnownValue(privateKeyTagAddr, tfjsonpath.New("name"), knownvalue.StringExact("treasury")),
					statecheck.ExpectKnownValue(privateKeyTagAddr, tfjsonpath.New("private_key_ids"), knownvalue.SetExact([]knownvalue.Check{
						knownvalue.StringExact(keys[0]), knownvalue.StringExact(keys[1])})),
					statecheck.ExpectKnownValue(privateKeyTagAddr, tfjsonpath.New("timeouts"), knownvalue.Null()),
					sameID.AddStateValue(privateKeyTagAddr, tfjsonpath.New("id")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					privateKeyTagTestMembers(e, keys[0], keys[1]),
					func(*terraform.State) error {
						// A create reads nothing back: no list per created tag.
						if n := e.srv.RequestCounts()["query/list_private_key_tags"]; n != 0 {
							return fmt.Errorf("the create listed the tags %d times, want 0", n)
						}
						return nil
					}),
			},
			{
				// A rename and a key swap are one update_private_key_tag on
				// the same tag: same id.
				Config:           privateKeyTagTestConfig(e, "treasury-renamed", keys[0], keys[2]),
				ConfigPlanChecks: expectAction(privateKeyTagAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(privateKeyTagAddr, tfjsonpath.New("name"), knownvalue.StringExact("treasury-renamed")),
					statecheck.ExpectKnownValue(privateKeyTagAddr, tfjsonpath.New("private_key_ids"), knownvalue.SetExact([]knownvalue.Check{
						knownvalue.StringExact(keys[0]), knownvalue.StringExact(keys[2])})),
					sameID.AddStateValue(privateKeyTagAddr, tfjsonpath.New("id")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					privateKeyTagTestMembers(e, keys[0], keys[2]),
					func(*terraform.State) error {
						// One activity did both: the rename and the membership.
						if n := e.srv.RequestCounts()["submit/update_private_key_tag"]; n != 1 {
							return fmt.Errorf("update_private_key_tag submitted %d times, want 1", n)
						}
						return nil
					}),
			},
			{ResourceName: privateKeyTagAddr, ImportState: true, ImportStateVerify: true},
			{
				ResourceName: privateKeyTagAddr, ImportState: true, ImportStateKind: resource.ImportBlockWithID,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(privateKeyTagAddr, plancheck.ResourceActionNoop),
					plancheck.ExpectKnownValue(privateKeyTagAddr, tfjsonpath.New("name"), knownvalue.StringExact("treasury-renamed")),
					plancheck.ExpectKnownValue(privateKeyTagAddr, tfjsonpath.New("private_key_ids"), knownvalue.SetSizeExact(2)),
				}},
			},
			{
				// Leaving private_key_ids out means "no keys", not "keep".
				Config: e.config(`
resource "custody_private_key_tag" "test" {
  name = "treasury-renamed"
}
`),
				ConfigPlanChecks: expectAction(privateKeyTagAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(privateKeyTagAddr, tfjsonpath.New("private_key_ids"), knownvalue.SetExact([]knownvalue.Check{})),
				},
				Check: privateKeyTagTestMembers(e),
			},
		},
	})
}

func TestAccPrivateKeyTag_drift(t *testing.T) {
	e := newAccEmulator(t)
	keys := privateKeyTagTestKeys(t, e, 2)
	cfg := privateKeyTagTestConfig(e, "ops", keys[0], keys[1])
	ctx := context.Background()
	planUpdate := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(privateKeyTagAddr, plancheck.ResourceActionUpdate)},
	}
	accTest(t, resource.TestCase{
		CheckDestroy: privateKeyTagTestDestroyed(e, keys),
		Steps: []resource.TestStep{
			{Config: cfg, Check: privateKeyTagTestMembers(e, keys[0], keys[1])},
			{
				// Renamed outside Terraform: refresh reads the new name and
				// the plan renames it back in place.
				PreConfig: func() {
					id := privateKeyTagTestID(t, e, "ops")
					if _, err := e.client.UpdatePrivateKeyTag(ctx, client.UpdatePrivateKeyTagParams{PrivateKeyTagID: id, NewPrivateKeyTagName: "ops-elsewhere"}); err != nil {
						t.Fatal(err)
					}
				},
				Config:           cfg,
				ConfigPlanChecks: planUpdate,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(privateKeyTagAddr, tfjsonpath.New("name"), knownvalue.StringExact("ops")),
				},
			},
			{
				// A key taken off the tag outside Terraform is put back.
				PreConfig: func() {
					id := privateKeyTagTestID(t, e, "ops")
					if _, err := e.client.UpdatePrivateKeyTag(ctx, client.UpdatePrivateKeyTagParams{PrivateKeyTagID: id, RemovePrivateKeyIDs: []string{keys[1]}}); err != nil {
						t.Fatal(err)
					}
				},
				Config:           cfg,
				ConfigPlanChecks: planUpdate,
				Check:            privateKeyTagTestMembers(e, keys[0], keys[1]),
			},
			{
				// Deleted outside Terraform: refresh drops it, plan creates it.
				PreConfig: func() {
					id := privateKeyTagTestID(t, e, "ops")
					if _, err := e.client.DeletePrivateKeyTags(ctx, client.DeletePrivateKeyTagsParams{PrivateKeyTagIDs: []string{id}}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(privateKeyTagAddr, plancheck.ResourceActionCreate)},
				},
				Check: privateKeyTagTestMembers(e, keys[0], keys[1]),
			},
		},
	})
}

func TestAccPrivateKeyTag_validation(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			planFails(privateKeyTagTestConfig(e, ""), regexp.MustCompile(`(?s)name.*string length must be between 1 and 256`)),
			planFails(privateKeyTagTestConfig(e, "   "), regexp.MustCompile(`must not be empty or only white space`)),
			planFails(privateKeyTagTestConfig(e, "x", ""), regexp.MustCompile(`(?s)private_key_ids.*string length must be at least 1`)),
		},
	})
	// Validation happens before anything is sent.
	for op := range e.srv.RequestCounts() {
		if strings.HasPrefix(op, "submit/") {
			t.Errorf("a plan with invalid configuration submitted %s", op)
		}
	}
}

// TestAccPrivateKeyTag_refreshListsOnce: refreshing five tags costs one
// list_private_key_tags and one list_private_keys query, not five of each.
func TestAccPrivateKeyTag_refreshListsOnce(t *testing.T) {
	e := newAccEmulator(t)
	keys := privateKeyTagTestKeys(t, e, 2)
	var before map[string]int
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
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("custody_private_key_tag.many[3]", tfjsonpath.New("private_key_ids"),
						knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(keys[1])})),
				},
			},
			{
				// A RefreshState step runs exactly one `terraform refresh`
				// (one provider configuration, so one list cache) between
				// PreConfig and Check; `terraform show` reads no API. The
				// counts are the emulator's queries by operation, taken as
				// the difference between Check and PreConfig.
				RefreshState: true,
				PreConfig:    func() { before = e.srv.RequestCounts() },
				Check: func(s *terraform.State) error {
					after := e.srv.RequestCounts()
					for _, op := range []string{"query/list_private_key_tags", "query/list_private_keys"} {
						if n := after[op] - before[op]; n != 1 {
							return fmt.Errorf("refreshing 5 tags made %d %s requests, want 1", n, op)
						}
					}
					if n := len(s.RootModule().Resources); n != 5 {
						return fmt.Errorf("refreshed state holds %d resources, want 5", n)
					}
					return nil
				},
			},
		},
	})
}
