package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// TestAccPrivateKeyTag_exclusive walks custody_private_key_tags_exclusive:
// a new claim plans the removal of a tag made outside Terraform, named,
// while the tag it lists, made in the same apply, is kept; the apply
// removes it; a tag added later is drift, planned and removed the same
// way; the claim imports by organization id and by identity; an id the
// organization lacks is an error naming it, and so is a second claim that
// lists other tags; destroying the claim deletes nothing.
func TestAccPrivateKeyTag_exclusive(t *testing.T) {
	e := newAccEmulator(t)
	const addr = "custody_private_key_tags_exclusive.all"
	makeTag := func(name string) string {
		t.Helper()
		out, err := e.client.CreatePrivateKeyTag(t.Context(), client.CreatePrivateKeyTagParams{PrivateKeyTagName: name})
		mustNot(t, err)
		return out.Result.PrivateKeyTagID
	}
	tags := func() ([]string, error) {
		out, err := e.client.ListPrivateKeyTags(t.Context(), client.ListPrivateKeyTagsRequest{})
		if err != nil {
			return nil, err
		}
		var names []string
		for _, tag := range out.PrivateKeyTags {
			names = append(names, tag.TagName)
		}
		return names, nil
	}
	removal := func(id, name string) knownvalue.Check { return removalOf(map[string]any{"id": id, "name": name}) }
	const kept = `
resource "custody_private_key_tag" "kept" { name = "kept" }
`
	claim := func(ids string) string {
		return e.config(kept + `
resource "custody_private_key_tags_exclusive" "all" {
  private_key_tag_ids = [` + ids + `]
}
`)
	}
	config := claim("custody_private_key_tag.kept.id")
	stray := makeTag("stray")
	var late string

	accTest(t, resource.TestCase{Steps: []resource.TestStep{
		{
			Config: config,
			ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionCreate,
				expectRemovals(addr, func() []knownvalue.Check { return []knownvalue.Check{removal(stray, "stray")} })),
			Check: serviceHolds("tags", tags, "kept"),
		},
		{
			PreConfig: func() { late = makeTag("late") },
			Config:    config,
			ConfigPlanChecks: expectAction(addr, plancheck.ResourceActionUpdate,
				expectRemovals(addr, func() []knownvalue.Check { return []knownvalue.Check{removal(late, "late")} })),
			Check: serviceHolds("tags", tags, "kept"),
		},
		{RefreshState: true}, // removals keeps what the apply removed until a refresh
		{Config: config, ResourceName: addr, ImportState: true, ImportStateVerify: true},
		importByIdentityStep(t, config, addr),
		planFails(claim(`custody_private_key_tag.kept.id, "no-such-tag"`),
			errorPhrases("No such private key tag", `private_key_tag_ids lists "no-such-tag"`)),
		planFails(claim("custody_private_key_tag.kept.id")+`
resource "custody_private_key_tags_exclusive" "other" {
  private_key_tag_ids = []
}
`, errorPhrases("Two custody_private_key_tags_exclusive in one configuration")),
		{
			PreConfig:        func() { makeTag("after") },
			Config:           e.config(kept),
			ConfigPlanChecks: planAction(addr, plancheck.ResourceActionDestroy),
			Check:            serviceHolds("tags", tags, "after", "kept"),
		},
	}})
}
