package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// dataSourceBase is what every data source has in common: its type name
// and the provider's data, which Configure sets. A data source embeds it
// and adds Schema and Read.
type dataSourceBase struct {
	typeName string // the name after "custody_"
	pd       *providerData
}

func (d *dataSourceBase) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.typeName
}

func (d *dataSourceBase) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// notConfigured reports whether Configure failed to give the data source
// what it reads with (ready is false), and then adds an error: the
// framework configures a data source before Read, so that is a bug.
func (d *dataSourceBase) notConfigured(ready bool, diags *diag.Diagnostics) bool {
	if !ready {
		diags.AddError("Provider not configured", "custody_"+d.typeName+" cannot be read before the provider is configured. "+
			"This is always a bug in the provider; please report it.")
	}
	return !ready
}

// readModel is the frame of every Read: it reads the configuration into a
// model, lets fill complete it from the service, and saves the model as
// the state unless fill reported an error.
func readModel[M any](ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse, fill func(m *M, diags *diag.Diagnostics)) {
	var m M
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fill(&m, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// listOf is the list attribute of in, each element converted by flatten.
// It is never nil: none is an empty list, not null, so that a for_each or
// a length() can use it without a null check.
func listOf[T, M any](in []T, flatten func(T) M) []M {
	out := make([]M, 0, len(in))
	for _, x := range in {
		out = append(out, flatten(x))
	}
	return out
}

// dataSource is a data source made of its parts: a type name, a schema,
// and a read function that fills the model (the configuration as read)
// from the service. Every data source is one but
// custody_webhook_verification_keys, which has its own Configure.
type dataSource[M any] struct {
	dataSourceBase
	schema schema.Schema
	read   func(ctx context.Context, d *dataSourceBase, m *M, diags *diag.Diagnostics)
}

// newDataSource is the data source custody_<typeName>.
func newDataSource[M any](typeName string, s schema.Schema,
	read func(ctx context.Context, d *dataSourceBase, m *M, diags *diag.Diagnostics),
) datasource.DataSource {
	return &dataSource[M]{dataSourceBase: dataSourceBase{typeName: typeName}, schema: s, read: read}
}

func (d *dataSource[M]) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.schema
}

// Read reads with the provider's client: a data source made by
// newDataSource always needs it.
func (d *dataSource[M]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.notConfigured(d.pd != nil, &resp.Diagnostics) {
		return
	}
	readModel(ctx, req, resp, func(m *M, diags *diag.Diagnostics) { d.read(ctx, &d.dataSourceBase, m, diags) })
}
