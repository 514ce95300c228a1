package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const (
	appStatusTestAddr = "data.custody_app_status.test"
	// From examples/emulator/fixtures.json: an app mid-rollout, the old
	// deployment still serving while the new one has 1 of 3 replicas.
	appStatusTestApp     = "1f867cf8-cde5-406f-b0ec-970e4c6b344c"
	appStatusTestServing = "03dfce4d-3e96-42b9-b6c1-fdef6f8f65c8"
	appStatusTestRollout = "ae52bab0-a682-4de6-ab7d-1a81865ccedc"
)

func appStatusTestConfig(e *accEmulator, appID string) string {
	return e.config(fmt.Sprintf(`
data "custody_app_status" "test" {
  app_id = %q
}
`, appID))
}

func TestAccAppStatusDataSource_basic(t *testing.T) {
	e := newAccEmulator(t, withExampleFixtures(t))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: appStatusTestConfig(e, appStatusTestApp),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(appStatusTestAddr, tfjsonpath.New("app_id"), knownvalue.StringExact(appStatusTestApp)),
				statecheck.ExpectKnownValue(appStatusTestAddr, tfjsonpath.New("targeted_deployment_id"), knownvalue.StringExact(appStatusTestServing)),
				statecheck.ExpectKnownValue(appStatusTestAddr, tfjsonpath.New("deployments"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{
						"deployment_id":     knownvalue.StringExact(appStatusTestServing),
						"ready_replicas":    knownvalue.Int64Exact(3),
						"desired_replicas":  knownvalue.Int64Exact(3),
						"last_updated_time": knownvalue.StringExact("2026-11-20T18:40:00Z"),
					}),
					knownvalue.ObjectExact(map[string]knownvalue.Check{
						"deployment_id":    knownvalue.StringExact(appStatusTestRollout),
						"ready_replicas":   knownvalue.Int64Exact(1),
						"desired_replicas": knownvalue.Int64Exact(3),
						// nanos 250000000 are kept, as a fraction of a second.
						"last_updated_time": knownvalue.StringExact("2026-11-21T22:26:40.25Z"),
					}),
				})),
			},
		}},
	})
}

func TestAccAppStatusDataSource_errors(t *testing.T) {
	e := newAccEmulator(t, withExampleFixtures(t))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      appStatusTestConfig(e, "00000000-0000-4000-8000-0000000000cc"),
				ExpectError: errorPhrases("Error reading app status", "app 00000000-0000-4000-8000-0000000000cc", "HTTP 404"),
			},
			planFails(appStatusTestConfig(e, "  "), errorPhrases("app_id", "must not be empty or only white space")),
		},
	})
}
