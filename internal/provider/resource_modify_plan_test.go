package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Every resource's ModifyPlan waits for the credentials check and fails
// the plan when it failed: each resource writes its own ModifyPlan (the
// policy's adds the lockout guard), so one that forgot the wait would plan
// new objects against a service it cannot use.
func TestEveryResourcePlansOnlyAfterTheCredentialsCheck(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	key := strangerKey(t)
	c, err := client.New(client.Config{BaseURL: closed.URL, OrganizationID: accOrg, APIPublicKey: key.PublicKeyHex(),
		APIPrivateKey: key.PrivateKeyHex(), Retries: client.NoRetries, CheckIdentity: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c.StartIdentityCheck(ctx)
	pd := newProviderData(c, 0)
	pd.guard = newLockoutGuard(pd, false)
	for _, newResource := range (&CustodyProvider{}).Resources(ctx) {
		r, ok := newResource().(importableResource)
		if !ok {
			t.Fatalf("%T is not an importableResource", newResource())
		}
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "custody"}, &meta)
		t.Run(meta.TypeName, func(t *testing.T) {
			r.Configure(ctx, resource.ConfigureRequest{ProviderData: pd}, &resource.ConfigureResponse{})
			var schema resource.SchemaResponse
			r.Schema(ctx, resource.SchemaRequest{}, &schema)
			typ := schema.Schema.Type().TerraformType(ctx)
			// A brand new object: no state, a plan of nulls.
			req := resource.ModifyPlanRequest{
				Config: tfsdk.Config{Schema: schema.Schema, Raw: tftypes.NewValue(typ, nil)},
				Plan:   tfsdk.Plan{Schema: schema.Schema, Raw: tftypes.NewValue(typ, nil)},
				State:  tfsdk.State{Schema: schema.Schema, Raw: tftypes.NewValue(typ, nil)},
			}
			resp := resource.ModifyPlanResponse{Plan: req.Plan}
			r.ModifyPlan(ctx, req, &resp)
			if !resp.Diagnostics.HasError() {
				t.Errorf("%s planned although the credentials check failed: %v", meta.TypeName, resp.Diagnostics)
			}
		})
	}
}
