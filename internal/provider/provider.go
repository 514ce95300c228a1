// Package provider implements the Terraform provider for the custody service.
package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

var _ provider.Provider = &CustodyProvider{}

// CustodyProvider carries the build version so it can be reported to the
// service and in diagnostics once the client is wired in.
type CustodyProvider struct {
	version string
}

// New returns a factory because providerserver and the acceptance tests each
// need a fresh provider per Terraform run.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &CustodyProvider{version: version}
	}
}

func (p *CustodyProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "custody"
	resp.Version = p.version
}

func (p *CustodyProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Manages the configuration of an organization in the custody service " +
			"(wallets and keys): policies, IP allowlists, OAuth providers, private key tags, " +
			"the organization name and webhook endpoints.",
	}
}

// Configure is a no-op until the resources need an API client: the provider
// configuration (endpoint, organization, credentials) arrives with the
// resources issue.
func (p *CustodyProvider) Configure(_ context.Context, _ provider.ConfigureRequest, _ *provider.ConfigureResponse) {
}

func (p *CustodyProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{}
}

func (p *CustodyProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{}
}
