package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// NewAppStatusDataSource is the custody_app_status data source.
func NewAppStatusDataSource() datasource.DataSource {
	return newDataSource("app_status", appStatusSchema(), readAppStatus)
}

type appStatusDataSourceModel struct {
	AppID                types.String               `tfsdk:"app_id"`
	Deployments          []appStatusDeploymentModel `tfsdk:"deployments"`
	TargetedDeploymentID types.String               `tfsdk:"targeted_deployment_id"`
}

type appStatusDeploymentModel struct {
	DeploymentID    types.String      `tfsdk:"deployment_id"`
	ReadyReplicas   types.Int64       `tfsdk:"ready_replicas"`
	DesiredReplicas types.Int64       `tfsdk:"desired_replicas"`
	LastUpdatedTime timetypes.RFC3339 `tfsdk:"last_updated_time"`
}

func appStatusSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The runtime status of a TVC app: its deployments, their replicas, and which deployment " +
			"serves traffic.",
		Attributes: map[string]schema.Attribute{
			"app_id": requiredArgument("The TVC app id.", notBlank()),
			"deployments": computedList("The app's deployments, in the order the service returns them.", map[string]schema.Attribute{
				"deployment_id":     computedString("The deployment's id (it matches the orchestrator's deployment label)."),
				"ready_replicas":    computedInt64("How many replicas (instances) are ready to serve."),
				"desired_replicas":  computedInt64("How many replicas (instances) the deployment should have."),
				"last_updated_time": computedTimestamp("When the deployment's status last changed, RFC 3339 (UTC)."),
			}),
			"targeted_deployment_id": computedString("The id of the deployment currently serving traffic."),
		},
	}
}

func readAppStatus(ctx context.Context, d *dataSourceBase, m *appStatusDataSourceModel, diags *diag.Diagnostics) {
	out, err := d.pd.client.GetAppStatus(ctx, client.GetAppStatusRequest{AppID: m.AppID.ValueString()})
	if err != nil {
		addAPIError(diags, "Error reading app status", client.QueryGetAppStatus, "app "+m.AppID.ValueString(), err)
		return
	}
	m.Deployments = listOf(out.AppStatus.Deployments, func(dep client.DeploymentStatus) appStatusDeploymentModel {
		return appStatusDeploymentModel{
			DeploymentID:    types.StringValue(dep.DeploymentID),
			ReadyReplicas:   types.Int64Value(int64(dep.ReadyReplicas)),
			DesiredReplicas: types.Int64Value(int64(dep.DesiredReplicas)),
			LastUpdatedTime: timestampValue(dep.LastUpdatedTime),
		}
	})
	m.TargetedDeploymentID = types.StringValue(out.AppStatus.TargetedDeploymentID)
}
