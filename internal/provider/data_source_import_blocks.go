package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/importblocks"
)

// NewImportBlocksDataSource is the custody_import_blocks data source.
func NewImportBlocksDataSource() datasource.DataSource {
	return newDataSource("import_blocks", importBlocksSchema(), readImportBlocks)
}

type importBlocksModel struct {
	ResourceTypes types.Set          `tfsdk:"resource_types"`
	ExcludeIDs    types.Set          `tfsdk:"exclude_ids"`
	HCL           types.String       `tfsdk:"hcl"`
	ExclusiveHCL  types.String       `tfsdk:"exclusive_hcl"`
	Blocks        []importBlockModel `tfsdk:"blocks"`
}

type importBlockModel struct {
	To   string `tfsdk:"to"`
	ID   string `tfsdk:"id"`
	Type string `tfsdk:"type"`
	Name string `tfsdk:"name"`
}

func importBlocksSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Every object of the organization that a resource of this provider can manage, rendered as " +
			"Terraform `import` blocks (`to` and `id` only, which Terraform 1.5 and later read), for adopting an organization " +
			"made by hand: see the guide *Adopting an existing organization*. Each block is named after the object's own " +
			"name (lower-case, `_` for anything else, a prefix such as `policy_` where the name would be empty or start " +
			"with a digit, `_2`, `_3`, ... where two objects of a type would share a name) and follows a comment naming " +
			"the object; blocks are sorted by address.\n\n" +
			"What it finds, with one request per list: every policy (`list_policies`), private key tag " +
			"(`list_private_key_tags`) and webhook endpoint (`list_webhook_endpoints`); the organization-level IP " +
			"allowlist and the allowlist of the provider's own API key (`get_ip_allowlist`, when they exist); the " +
			"organization's name and the OAuth providers of the provider's own user (`whoami`, `get_oauth_providers`).\n\n" +
			"What it cannot find, because the service has no query that lists it: the OAuth providers of other users, and " +
			"the IP allowlists of other API keys. Import those by hand, with `<user_id>/<provider_id>` for " +
			"`custody_oauth_provider` (the user's providers are listed by `custody_oauth_providers`) and with the key's " +
			"public key for `custody_ip_allowlist`.\n\n" +
			"A policy that `custody_policy`'s plan-time checks refuse (an expression the policy language check refuses, a name " +
			"beyond the limits: a policy made long ago, before the checks) gets no block, since the configuration Terraform would " +
			"generate for it could not be planned: a comment in its place names it and quotes the checks' message. Fix the " +
			"policy, then import it by hand.\n\n" +
			"`exclusive_hcl` ends the adoption exclusive: for each collection it read whole, an `import` block and a resource " +
			"block of the collection's exclusive resource (`custody_policies_exclusive`, `custody_private_key_tags_exclusive`, " +
			"`custody_webhook_endpoints_exclusive`, and `custody_oauth_providers_exclusive` for the provider's own user), " +
			"which plans the removal of anything its set does not list. Each set lists every object of the collection found: " +
			"the adopted ones by reference (`custody_policy.signing.id`), and by literal id, after a comment saying why, the " +
			"ones left out: those `exclude_ids` names (the grant that lets Terraform act, kept outside the configuration) and " +
			"the policies the plan-time checks refuse. So the plan that adopts the organization removes nothing, and the next " +
			"one is empty; an object added beside the configuration later is planned for removal. Its references name the " +
			"resources `terraform plan -generate-config-out` writes, so add it after that command (a reference to a resource " +
			"not yet written fails the plan).",
		Attributes: map[string]schema.Attribute{
			"resource_types": schema.SetAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "The resource types to find objects of, e.g. `[\"custody_policy\"]`. Defaults to all of " +
					"them: `custody_policy`, `custody_private_key_tag`, `custody_webhook_endpoint`, `custody_ip_allowlist`, " +
					"`custody_organization_name` and `custody_oauth_provider`. A type left out is not read, so `exclusive_hcl` " +
					"declares no collection of it whole (a set written without reading the collection could miss an object, " +
					"and plan its removal): declare it with its exclusive resource by hand, listing every id.",
				Validators: []validator.Set{setvalidator.ValueStringsAre(stringvalidator.OneOf(importblocks.Types...))},
			},
			"exclude_ids": schema.SetAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Objects to leave out, by import id (or, for an OAuth provider, its provider id too): " +
					"for example the policy that lets Terraform act, which is best kept outside the configuration Terraform " +
					"manages. Defaults to none. An object left out gets no import block, but its collection is still read whole: " +
					"`exclusive_hcl` lists it by literal id, so that the exclusive resource keeps it.",
			},
			"hcl": computedString("The whole rendered text: a comment, then for each object a comment naming it and an " +
				"`import` block, or, for a policy the plan-time checks refuse, comments saying why it has none. Write it to a " +
				"`.tf` file and run `terraform plan -generate-config-out=generated.tf`."),
			"exclusive_hcl": computedString("The exclusive resources of the collections read whole (policies, private key " +
				"tags, webhook endpoints, the OAuth providers of the provider's own user), each with an `import` block and a set " +
				"that lists every object found: adopted ones by reference, left-out ones by literal id with a comment saying " +
				"why. Empty when `resource_types` names none of these. Write it to a `.tf` file once " +
				"`generated.tf` exists, then apply."),
			"blocks": computedList("The import blocks rendered in `hcl`, in its order (without the refused policies).",
				map[string]schema.Attribute{
					"to":   computedString("The address imported to, e.g. `custody_policy.signing`."),
					"id":   computedString("The import id."),
					"type": computedString("The resource type, e.g. `custody_policy`."),
					"name": computedString("The object's own name, which the address is made from."),
				}),
		},
	}
}

func readImportBlocks(ctx context.Context, d *dataSourceBase, m *importBlocksModel, diags *diag.Diagnostics) {
	wanted := importblocks.Types
	if !m.ResourceTypes.IsNull() && !m.ResourceTypes.IsUnknown() {
		wanted = nil
		diags.Append(m.ResourceTypes.ElementsAs(ctx, &wanted, false)...)
	}
	var exclude []string
	if !m.ExcludeIDs.IsNull() && !m.ExcludeIDs.IsUnknown() {
		diags.Append(m.ExcludeIDs.ElementsAs(ctx, &exclude, false)...)
	}
	if diags.HasError() {
		return
	}
	f := importFinder{ctx: ctx, pd: d.pd, diags: diags}
	var objs, excluded []importblocks.Object
	var wholes []importblocks.Whole
	for _, t := range importblocks.Types {
		if !slices.Contains(wanted, t) {
			continue
		}
		found := importFinders[t](&f)
		if diags.HasError() {
			return
		}
		kept, left := importblocks.Exclude(found, exclude)
		objs, excluded = append(objs, kept...), append(excluded, left...)
		wholes = append(wholes, f.whole(t)...)
	}
	blocks := importblocks.Addresses(objs)
	m.HCL = types.StringValue(importblocks.Render(importblocks.Header, blocks))
	m.ExclusiveHCL = types.StringValue(importblocks.RenderExclusive(importblocks.ExclusiveHeader, wholes, blocks, excluded))
	m.Blocks = []importBlockModel{}
	for _, b := range blocks {
		if b.Refused == "" {
			m.Blocks = append(m.Blocks, importBlockModel{To: b.To, ID: b.ID, Type: b.Type, Name: b.Name})
		}
	}
}

// importFinder reads the lists custody_import_blocks renders, each once.
type importFinder struct {
	ctx   context.Context
	pd    *providerData
	diags *diag.Diagnostics
	who   *client.WhoamiResponse
}

// whole is the collection of type t that f has read whole, which its
// exclusive resource declares: the organization's, or the OAuth providers
// of the provider's own user (the one user whose providers f reads).
// None for a type that is no collection.
func (f *importFinder) whole(t string) []importblocks.Whole {
	ex, ok := importblocks.Exclusives[t]
	switch {
	case !ok:
		return nil
	case ex.UserAttr != "":
		return []importblocks.Whole{{Of: t, ID: f.who.UserID, User: f.who.Username}}
	}
	return []importblocks.Whole{{Of: t, ID: f.pd.client.OrganizationID()}}
}

// importFinders read the objects of each type of importblocks.Types
// (TestImportFinders checks that none is missing).
var importFinders = map[string]func(*importFinder) []importblocks.Object{
	"custody_policy":            (*importFinder).policies,
	"custody_private_key_tag":   (*importFinder).tags,
	"custody_webhook_endpoint":  (*importFinder).webhookEndpoints,
	"custody_ip_allowlist":      (*importFinder).allowlists,
	"custody_organization_name": (*importFinder).organizationName,
	"custody_oauth_provider":    (*importFinder).oauthProviders,
}

// importObjects is the import object (object) of each item of a list the
// provider read, or, when the read failed with err, none and the error
// "Error listing <what>" (query and subject say which read). items is
// called only after a read that succeeded.
func importObjects[T any](f *importFinder, err error, what, query, subject string, items func() []T,
	object func(T) importblocks.Object,
) []importblocks.Object {
	if err != nil {
		addAPIError(f.diags, "Error listing "+what, query, subject, err)
		return nil
	}
	return listOf(items(), object)
}

func (f *importFinder) policies() []importblocks.Object {
	list, err := cachedPolicies(f.ctx, f.pd)
	s := policyResourceSchema(f.ctx)
	return importObjects(f, err, "policies", client.QueryListPolicies, "", func() []client.Policy { return list.all },
		func(p client.Policy) importblocks.Object {
			return importblocks.Object{Type: "custody_policy", ID: p.PolicyID, Name: p.PolicyName,
				What: fmt.Sprintf("policy %q (%s)", p.PolicyName, p.PolicyID), Refused: policyRefusal(f.ctx, s, p)}
		})
}

// policyRefusal is why custody_policy's plan-time checks refuse the
// configuration Terraform would generate for p, or "" when they accept
// it. It runs the validators of custody_policy's own schema (the policy
// language, the limits on names and the effects) on each value as the
// service stores it, so that the two can never disagree. An empty
// condition, consensus, time or notes is null in the generated
// configuration, which the validators skip.
func policyRefusal(ctx context.Context, s rschema.Schema, p client.Policy) string {
	for _, v := range []struct {
		attr, value string
		optional    bool
	}{
		{"name", p.PolicyName, false}, {"effect", p.Effect, false}, {"condition", p.Condition, true},
		{"consensus", p.Consensus, true}, {"time", p.Time, true}, {"notes", p.Notes, true},
	} {
		if v.optional && v.value == "" {
			continue
		}
		a, ok := s.Attributes[v.attr].(rschema.StringAttribute)
		if !ok {
			return fmt.Sprintf("custody_policy has no string attribute %s; this is always a bug in the provider", v.attr)
		}
		req := validator.StringRequest{Path: path.Root(v.attr), PathExpression: path.MatchRoot(v.attr),
			ConfigValue: types.StringValue(v.value)}
		var msgs []string
		for _, check := range a.Validators {
			var resp validator.StringResponse
			check.ValidateString(ctx, req, &resp)
			for _, d := range resp.Diagnostics.Errors() {
				msgs = append(msgs, d.Summary()+": "+d.Detail())
			}
		}
		if len(msgs) > 0 {
			return fmt.Sprintf("the provider's plan-time checks refuse its %s:\n%s", v.attr, strings.Join(msgs, "\n"))
		}
	}
	return ""
}

// policyResourceSchema is custody_policy's schema, whose validators policyRefusal runs.
func policyResourceSchema(ctx context.Context) rschema.Schema {
	var resp resource.SchemaResponse
	NewPolicyResource().Schema(ctx, resource.SchemaRequest{}, &resp)
	return resp.Schema
}

func (f *importFinder) tags() []importblocks.Object {
	list, err := cachedPrivateKeyTags(f.ctx, f.pd)
	return importObjects(f, err, "private key tags", client.QueryListPrivateKeyTags, "", func() []client.Tag { return list.PrivateKeyTags },
		func(t client.Tag) importblocks.Object {
			return importblocks.Object{Type: "custody_private_key_tag", ID: t.TagID, Name: t.TagName,
				What: fmt.Sprintf("private key tag %q (%s)", t.TagName, t.TagID)}
		})
}

func (f *importFinder) webhookEndpoints() []importblocks.Object {
	list, err := cachedWebhookEndpoints(f.ctx, f.pd)
	return importObjects(f, err, "webhook endpoints", client.QueryListWebhookEndpoints, "",
		func() []client.WebhookEndpoint { return list.WebhookEndpoints },
		func(ep client.WebhookEndpoint) importblocks.Object {
			return importblocks.Object{Type: "custody_webhook_endpoint", ID: ep.EndpointID, Name: ep.Name,
				What: fmt.Sprintf("webhook endpoint %q (%s, %s)", ep.Name, ep.EndpointID, ep.URL)}
		})
}

// allowlists finds the organization-level allowlist and that of the
// provider's own API key: no query lists the other keys.
func (f *importFinder) allowlists() []importblocks.Object {
	var out []importblocks.Object
	for _, key := range []string{"", f.pd.client.PublicKey()} {
		_, err := f.pd.client.GetIPAllowlist(f.ctx, client.GetIPAllowlistRequest{PublicKey: key})
		if errors.Is(err, client.ErrNotFound) {
			continue
		}
		if err != nil {
			addAPIError(f.diags, "Error reading IP allowlist", client.QueryGetIPAllowlist, ipAllowlistName(key), err)
			return nil
		}
		o := importblocks.Object{Type: "custody_ip_allowlist", ID: ipAllowlistOrgID, Name: "organization",
			What: "the organization-level IP allowlist"}
		if key != "" {
			o = importblocks.Object{Type: "custody_ip_allowlist", ID: key, Name: "api_key_" + key[:8],
				What: "the IP allowlist of the provider's own API key " + key}
		}
		out = append(out, o)
	}
	return out
}

// whoami is read once, for the organization name and the user whose
// OAuth providers can be listed: the credentials check's answer, when the
// provider made one, so that it costs no request of its own.
func (f *importFinder) whoami() *client.WhoamiResponse {
	if f.who == nil {
		who, err := f.pd.client.Identity(f.ctx)
		if err != nil {
			addAPIError(f.diags, "Error reading the organization", client.QueryWhoami, "", err)
			return nil
		}
		f.who = who
	}
	return f.who
}

func (f *importFinder) organizationName() []importblocks.Object {
	who := f.whoami()
	if who == nil {
		return nil
	}
	return []importblocks.Object{{Type: "custody_organization_name", ID: who.OrganizationID,
		Name: who.OrganizationName, What: fmt.Sprintf("the organization's name %q (%s)", who.OrganizationName, who.OrganizationID)}}
}

// oauthProviders finds the providers of the provider's own user: the
// service lists providers per user and has no query listing the users.
func (f *importFinder) oauthProviders() []importblocks.Object {
	who := f.whoami()
	if who == nil {
		return nil
	}
	list, err := cachedOauthProviders(f.ctx, f.pd, who.UserID)
	out := importObjects(f, err, "OAuth providers", client.QueryGetOauthProviders, "user "+who.UserID,
		func() []client.OauthProvider { return list.OauthProviders },
		func(p client.OauthProvider) importblocks.Object {
			return importblocks.Object{OtherID: p.ProviderID, Member: p.ProviderID, User: who.UserID, Type: "custody_oauth_provider",
				ID: who.UserID + "/" + p.ProviderID, Name: p.ProviderName,
				What: fmt.Sprintf("OAuth provider %q of user %s (%s; issuer %s, audience %s, subject %s)",
					p.ProviderName, who.UserID, p.ProviderID, p.Issuer, p.Audience, p.Subject)}
		})
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
