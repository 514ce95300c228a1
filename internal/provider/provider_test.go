package provider

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// testAccProtoV6ProviderFactories runs the provider in-process, so acceptance
// tests exercise the current code without building or installing a binary,
// served as main.go serves it.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"custody": func() (tfprotov6.ProviderServer, error) { return NewProtocol6Server("test"), nil },
}

// testAccPreCheck fails instead of skipping: a missing Terraform must not turn
// into a silently green acceptance run.
func testAccPreCheck(t *testing.T) {
	t.Helper()
	terraformBinary(t)
}

// terraformBinary is the terraform the acceptance tests run, found as
// terraform-plugin-testing finds it: TF_ACC_TERRAFORM_PATH when set, else
// terraform on PATH. So `TF_ACC=1 go test ./...` works without make; a
// machine with no terraform fails, loudly.
func terraformBinary(t testing.TB) string {
	t.Helper()
	if path := os.Getenv("TF_ACC_TERRAFORM_PATH"); path != "" {
		// LookPath on a path with a slash checks that the file is an executable.
		if _, err := exec.LookPath(path); err != nil {
			t.Fatalf("TF_ACC_TERRAFORM_PATH=%q is not an executable (%v): point it at Terraform (>= 1.11), or unset it "+
				"to use the terraform on PATH", path, err)
		}
		return path
	}
	path, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatal("no terraform on PATH: acceptance tests (TF_ACC=1) run the real Terraform CLI; install Terraform (>= 1.11) " +
			"and put it on PATH, or set TF_ACC_TERRAFORM_PATH")
	}
	return path
}

func TestProviderSchemaIsValid(t *testing.T) {
	ctx := context.Background()
	p := New("test")()

	var meta provider.MetadataResponse
	p.Metadata(ctx, provider.MetadataRequest{}, &meta)
	if meta.TypeName != "custody" {
		t.Errorf("TypeName = %q, want %q", meta.TypeName, "custody")
	}

	var resp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("Schema diagnostics: %v", resp.Diagnostics)
	}
	if diags := resp.Schema.ValidateImplementation(ctx); diags.HasError() {
		t.Fatalf("ValidateImplementation: %v", diags)
	}
}

// TestAccProviderServes proves the real terraform binary can start, query and
// plan against the provider; terraform_data is built in, so nothing is
// downloaded.
func TestAccProviderServes(t *testing.T) {
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: `
provider "custody" {}

resource "terraform_data" "probe" {
  input = "served"
}

output "probe" {
  value = terraform_data.probe.output
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("probe", knownvalue.StringExact("served")),
			},
		}},
	})
}

// TestAccProviderRefusesBadLiteralsAtPlan drives the real CLI: a bad
// max_retries, approval_timeout or max_requests_per_second written in the
// provider block fails the plan with the schema's message, before
// Configure could see it (its own messages name the environment variable;
// these do not).
func TestAccProviderRefusesBadLiteralsAtPlan(t *testing.T) {
	e := newAccEmulator(t)
	step := func(line, want string) resource.TestStep {
		return resource.TestStep{
			Config: e.providerBlock(line) + `
resource "custody_organization_name" "this" {
  name = "Never Renamed"
}
`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(strings.ReplaceAll(want, " ", `\s+`)),
		}
	}
	// The emulator's address written without its scheme: refused on
	// base_url with the value and the URL to write instead.
	bare := strings.TrimPrefix(e.url, "http://")
	noScheme := resource.TestStep{
		Config: providerHCL(bare, accOrg, e.key) + `
resource "custody_organization_name" "this" {
  name = "Never Renamed"
}
`,
		PlanOnly: true,
		ExpectError: regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(fmt.Sprintf(
			`base_url %q has no scheme: write it as %q (http:// only for an emulator on a loopback address)`, bare, "https://"+bare)), " ", `\s+`)),
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			step("max_retries = 99", "max_retries value must be between 0 and 20, got: 99"),
			step(`approval_timeout = "soon"`, "Invalid Time Duration String Value"),
			step(`approval_timeout = "0s"`, `approval_timeout must be a positive duration such as "30m", got "0s"`),
			step("max_requests_per_second = 0", "max_requests_per_second must be a positive number of requests per second, such as 5 or 0.5, got 0."),
			noScheme,
		},
	})
}
