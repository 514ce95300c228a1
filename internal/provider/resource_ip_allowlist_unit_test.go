package provider

// Tests of custody_ip_allowlist that need no Terraform binary.

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	fwschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// TestIPAllowlistWarnIfLockedOut: after an apply that locks the key out,
// the provider says so at once, with the way out, instead of leaving it to
// the next plan; an allowlist that lets the key in gives no warning.
func TestIPAllowlistWarnIfLockedOut(t *testing.T) {
	e := newAccEmulator(t)
	ctx := context.Background()
	r := &ipAllowlistResource{resourceBase{pd: newProviderData(e.client, time.Minute)}}
	org := ipAllowlistModel{PublicKey: types.StringNull()}
	on := true
	set := func(cidr string) {
		t.Helper()
		if _, err := e.client.SetIPAllowlist(ctx, client.SetIPAllowlistParams{Enabled: &on, Rules: []client.IPAllowlistRuleParams{{CIDR: cidr}}}); err != nil {
			t.Fatal(err)
		}
	}
	set("127.0.0.0/8")
	var diags diag.Diagnostics
	r.warnIfLockedOut(ctx, org, &diags)
	if len(diags) != 0 {
		t.Fatalf("an allowlist that includes the caller: want no diagnostics, got %v", diags)
	}
	set("192.0.2.0/24")
	r.warnIfLockedOut(ctx, org, &diags)
	if diags.HasError() || len(diags.Warnings()) != 1 {
		t.Fatalf("want one warning, got %v", diags)
	}
	if d := diags.Warnings()[0].Detail(); !strings.Contains(d, "not in the IP allowlist") || !strings.Contains(d, "another API key") {
		t.Fatalf("the warning must quote the refusal and say how to recover, got %q", d)
	}
}

// TestIPAllowlistSchema checks the schema is valid and documents every
// attribute (the docs are generated from it).
func TestIPAllowlistSchema(t *testing.T) {
	ipAllowlistSchemaDocumented(t, NewIPAllowlistResource())
}

func ipAllowlistSchemaDocumented(t *testing.T, r fwresource.Resource) {
	t.Helper()
	ctx := context.Background()
	var resp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	if d := resp.Schema.ValidateImplementation(ctx); d.HasError() {
		t.Fatal(d)
	}
	if resp.Schema.MarkdownDescription == "" {
		t.Error("the resource has no MarkdownDescription")
	}
	var walk func(prefix string, attrs map[string]fwschema.Attribute)
	walk = func(prefix string, attrs map[string]fwschema.Attribute) {
		for name, a := range attrs {
			if a.GetMarkdownDescription() == "" && a.GetDescription() == "" {
				t.Errorf("attribute %s%s has no description", prefix, name)
			}
			switch n := a.(type) {
			case fwschema.SetNestedAttribute:
				walk(prefix+name+".", n.NestedObject.Attributes)
			case fwschema.SingleNestedAttribute:
				walk(prefix+name+".", n.Attributes)
			}
		}
	}
	walk("", resp.Schema.Attributes)
}
