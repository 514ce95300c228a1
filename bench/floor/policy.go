package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ resource.ResourceWithImportState = (*policy)(nil)

// policy is floor_policy: the schema of custody_policy
// (internal/provider/resource_policy.go) attribute for attribute, with the
// same types, defaults, plan modifiers and timeouts, but without the
// custody validators and without any I/O. It is the shaped floor: what a
// framework provider costs for a resource of that shape before it does
// any work. Keep it in step with custody_policy's schema.
type policy struct{}

type policyModel struct {
	ID        types.String   `tfsdk:"id"`
	Name      types.String   `tfsdk:"name"`
	Effect    types.String   `tfsdk:"effect"`
	Condition types.String   `tfsdk:"condition"`
	Consensus types.String   `tfsdk:"consensus"`
	Time      types.String   `tfsdk:"time"`
	Notes     types.String   `tfsdk:"notes"`
	CreatedAt types.String   `tfsdk:"created_at"`
	UpdatedAt types.String   `tfsdk:"updated_at"`
	Timeouts  timeouts.Value `tfsdk:"timeouts"`
}

func newPolicy() resource.Resource { return &policy{} }

func (r *policy) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_policy"
}

func (r *policy) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A policy that exists only in Terraform state, shaped like custody_policy.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "A random id assigned on create.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name":      schema.StringAttribute{Required: true, Description: "Any string."},
			"effect":    schema.StringAttribute{Required: true, Description: "Any string."},
			"condition": schema.StringAttribute{Optional: true, Description: "Any string."},
			"consensus": schema.StringAttribute{Optional: true, Description: "Any string."},
			"time":      schema.StringAttribute{Optional: true, Description: "Any string."},
			"notes": schema.StringAttribute{
				Optional:    true,
				Computed:    true,
				Default:     stringdefault.StaticString(""),
				Description: "Any string; defaults to the empty string.",
			},
			"created_at": schema.StringAttribute{
				Computed:      true,
				Description:   "When create ran (RFC 3339, UTC).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"updated_at": schema.StringAttribute{
				Computed:    true,
				Description: "When create or the last update ran (RFC 3339, UTC).",
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

// now is the time as custody_policy renders it.
func now() types.String { return types.StringValue(time.Now().UTC().Format(time.RFC3339Nano)) }

// newID is a random id in the form of a UUID.
func newID() types.String {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return types.StringValue(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:]))
}

func (r *policy) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	keep(ctx, req.Plan, &resp.State, &resp.Diagnostics, func(plan *policyModel) {
		plan.ID = newID()
		plan.CreatedAt = now()
		plan.UpdatedAt = plan.CreatedAt
	})
}

func (r *policy) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	keep[policyModel](ctx, req.State, &resp.State, &resp.Diagnostics, nil)
}

func (r *policy) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	keep(ctx, req.Plan, &resp.State, &resp.Diagnostics, func(plan *policyModel) { plan.UpdatedAt = now() })
}

func (r *policy) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
	// Nothing to delete: the framework removes the resource from state.
}

func (r *policy) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}
