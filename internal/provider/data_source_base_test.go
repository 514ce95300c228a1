package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// TestDataSourcesConfigured checks, for every data source the provider
// serves, that the provider can configure it and that its type names are
// distinct: both come from dataSourceBase.
func TestDataSourcesConfigured(t *testing.T) {
	seen := map[string]bool{}
	for _, factory := range dataSourceFactories {
		ds := factory()
		if _, ok := ds.(datasource.DataSourceWithConfigure); !ok {
			t.Errorf("%T has no Configure", ds)
		}
		resp := &datasource.MetadataResponse{}
		ds.Metadata(context.Background(), datasource.MetadataRequest{ProviderTypeName: "custody"}, resp)
		if resp.TypeName == "custody_" || seen[resp.TypeName] {
			t.Errorf("%T has the type name %q, empty or taken by another data source", ds, resp.TypeName)
		}
		seen[resp.TypeName] = true
	}
}

func TestDataSourceNotConfigured(t *testing.T) {
	d := &dataSourceBase{typeName: "activity"}
	var diags diag.Diagnostics
	if d.notConfigured(true, &diags) || diags.HasError() {
		t.Fatalf("a configured data source: %v", diags)
	}
	if !d.notConfigured(false, &diags) || !diags.HasError() || !strings.Contains(diags[0].Detail(), "custody_activity cannot be read") {
		t.Fatalf("an unconfigured data source: %v", diags)
	}
}
