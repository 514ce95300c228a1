package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

var (
	_ datasource.DataSource              = &appStatusDataSource{}
	_ datasource.DataSourceWithConfigure = &appStatusDataSource{}
)

// NewAppStatusDataSource is the custody_app_status data source.
func NewAppStatusDataSource() datasource.DataSource { return &appStatusDataSource{} }

type appStatusDataSource struct{ pd *providerData }

type appStatusDataSourceModel struct {
	AppID                types.String               `tfsdk:"app_id"`
	Deployments          []appStatusDeploymentModel `tfsdk:"deployments"`
	TargetedDeploymentID types.String               `tfsdk:"targeted_deployment_id"`
}

type appStatusDeploymentModel struct {
	DeploymentID    types.String `tfsdk:"deployment_id"`
	ReadyReplicas   types.Int64  `tfsdk:"ready_replicas"`
	DesiredReplicas types.Int64  `tfsdk:"desired_replicas"`
	LastUpdatedTime types.String `tfsdk:"last_updated_time"`
}

func (d *appStatusDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_app_status"
}

func (d *appStatusDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The runtime status of a TVC app: its deployments, their replicas, and which deployment " +
			"serves traffic.",
		Attributes: map[string]schema.Attribute{
			"app_id": schema.StringAttribute{Required: true, Validators: []validator.String{notBlank()},
				MarkdownDescription: "The TVC app id."},
			"deployments": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The app's deployments, in the order the service returns them.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"deployment_id":     computedString("The deployment's id (it matches the orchestrator's deployment label)."),
					"ready_replicas":    computedInt64("How many replicas (instances) are ready to serve."),
					"desired_replicas":  computedInt64("How many replicas (instances) the deployment should have."),
					"last_updated_time": computedString("When the deployment's status last changed, RFC 3339 (UTC)."),
				}},
			},
			"targeted_deployment_id": computedString("The id of the deployment currently serving traffic."),
		},
	}
}

func (d *appStatusDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *appStatusDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m appStatusDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	out, err := d.pd.client.GetAppStatus(ctx, client.GetAppStatusRequest{AppID: m.AppID.ValueString()})
	if err != nil {
		addAPIError(&resp.Diagnostics, "Error reading app status", "get_app_status", "app "+m.AppID.ValueString(), err)
		return
	}
	// Never null: an app without deployments has an empty list.
	m.Deployments = make([]appStatusDeploymentModel, 0, len(out.AppStatus.Deployments))
	for _, dep := range out.AppStatus.Deployments {
		m.Deployments = append(m.Deployments, appStatusDeploymentModel{
			DeploymentID:    types.StringValue(dep.DeploymentID),
			ReadyReplicas:   types.Int64Value(int64(dep.ReadyReplicas)),
			DesiredReplicas: types.Int64Value(int64(dep.DesiredReplicas)),
			LastUpdatedTime: timestampValue(dep.LastUpdatedTime),
		})
	}
	m.TargetedDeploymentID = types.StringValue(out.AppStatus.TargetedDeploymentID)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
