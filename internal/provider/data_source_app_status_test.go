package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
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
	return e.dataBlock("custody_app_status", "app_id", appID)
}

func TestAccAppStatusDataSource_basic(t *testing.T) {
	e := newAccEmulator(t, withExampleFixtures(t))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: appStatusTestConfig(e, appStatusTestApp),
			ConfigStateChecks: attrsAre(appStatusTestAddr, map[string]knownvalue.Check{
				"app_id":                 knownvalue.StringExact(appStatusTestApp),
				"targeted_deployment_id": knownvalue.StringExact(appStatusTestServing),
				"deployments": knownvalue.ListExact([]knownvalue.Check{
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
				}),
			}),
		}},
	})
}

func TestAccAppStatusDataSource_errors(t *testing.T) {
	accReadErrors(t, appStatusTestConfig, "app_id", "  ", "00000000-0000-4000-8000-0000000000cc",
		"Error reading app status", "app 00000000-0000-4000-8000-0000000000cc", "HTTP 404")
}
